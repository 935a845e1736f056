TITLE="page-lock example 2: Y waits for X's folio lock under mutex A, kthread Z takes A before unlocking it"
run() {
	xr_needs pagelock
	xr_scenario seed2
}
