TITLE="page-lock example 1: X takes mutex A then folio lock B, Y takes B then A"
run() {
	xr_needs pagelock
	xr_scenario seed1
}
