TITLE="plain mutex ABBA (stock lockdep catches this one)"
run() {
	xr_scenario abba
}
