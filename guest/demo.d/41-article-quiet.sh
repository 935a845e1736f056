TITLE="LWN article example, quiet twin: Y waits for the folio lock before it takes A (no report expected)"
run() {
	xr_needs pagelock
	xr_scenario article_quiet
}
