TITLE="seed example 3, quiet twin: the waiter does not hold the mutex (no report expected)"
run() {
	xr_scenario seed3_quiet
}
