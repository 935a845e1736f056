#!/bin/sh
# Guest demo: run every scenario in /xr/demo.d/ (sorted), print the kernel
# log it produced, then the crosslock dependencies lockdep recorded.
# A scenario is a shell snippet; it may set TITLE and must define run(),
# which provokes (or prints) a report.  See guest/demo.d/README.
# Reports are printed below from dmesg, not on the console as well: at
# console loglevel 0 even lockdep's console_verbose() leaves it silent.
echo 0 > /proc/sys/kernel/printk

# Run one scenario of lib/test_crossrelease.c, then re-arm lockdep.
xr_scenario() {
	knob=/sys/kernel/debug/test_crossrelease/run
	[ -w $knob ] || modprobe test_crossrelease || { echo "(no test_crossrelease module)"; return; }
	sh -c "echo $1 > $knob"		# a process of its own, see the module
}
# Lockdep reports once per boot: scripts/demo.sh boots once per scenario
# and names it with xr.demo=<file name>; without it, run them all.
only=
for arg in $(cat /proc/cmdline); do
	case $arg in xr.demo=*) only=${arg#xr.demo=} ;; esac
done

for s in /xr/demo.d/*.sh; do
	[ -z "$only" ] || [ "$(basename "$s")" = "$only" ] || continue
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
	# the demo's classes (crosslocks and the locks around them), each
	# followed by the classes it was seen to depend on ("->")
	awk '/^[^ ].*(xr_demo|xr_quiet|PG_locked)/ { p = 1; print; next }
	     /^[^ ]/ { p = 0 } p && /->/' /proc/lockdep | grep . || echo "(none recorded)"
else
	echo "(no /proc/lockdep)"
fi
