TITLE="seed example 3: wait_for_completion() under a mutex the completer takes"
run() {
	xr_needs completions
	xr_scenario seed3
}
