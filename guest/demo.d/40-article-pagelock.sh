TITLE="LWN article example: example 2 with kthread X and a work item Z that takes A and unlocks the folio"
run() {
	xr_needs pagelock
	xr_scenario article
}
