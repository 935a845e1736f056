#!/bin/sh
# Guest demo: run every scenario in /xr/demo.d/ (sorted), print the kernel
# log it produced, then the crosslock dependencies lockdep recorded.
# A scenario is a shell snippet; it may set TITLE and must define run(),
# which provokes (or prints) a report.  See guest/demo.d/README.
dmesg -n 1	# reports are printed below, not twice on the console

# Run one scenario of lib/test_crossrelease.c, then re-arm lockdep.
xr_scenario() {
	knob=/sys/kernel/debug/test_crossrelease/run
	[ -w $knob ] || modprobe test_crossrelease || { echo "(no test_crossrelease module)"; return; }
	echo "$1" > $knob
	echo rearm > $knob
}
for s in /xr/demo.d/*.sh; do
	[ -f "$s" ] || continue
	TITLE=$(basename "$s" .sh)
	unset -f run
	. "$s"
	echo
	echo "================ scenario: $TITLE"
	before=$(dmesg | wc -l)
	run
	dmesg | tail -n +$((before + 1))
done
echo
echo "================ crosslock dependencies in /proc/lockdep"
if [ -r /proc/lockdep ]; then
	grep -E '\((complete|PG_locked)\)' /proc/lockdep || echo "(none recorded)"
else
	echo "(no /proc/lockdep)"
fi
