TITLE="page-lock example 1, quiet twin: Y takes A then B, like X (no report expected)"
run() {
	xr_needs pagelock
	xr_scenario seed1_quiet
}
