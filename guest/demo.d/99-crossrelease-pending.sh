TITLE="crossrelease scenarios"
run() {
	echo "crossrelease scenarios are pending (no demo test module yet)"
}
