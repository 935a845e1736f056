#!/bin/sh
# Guest demo: run every scenario in /xr/demo.d/ (sorted), print the kernel
# log it produced, then the crosslock dependencies lockdep recorded.
# A scenario is a shell snippet; it may set TITLE and must define run(),
# which provokes (or prints) a report.  See guest/demo.d/README.
# Reports are printed below from dmesg, not on the console as well: at
# console loglevel 0 even lockdep's console_verbose() leaves it silent.
echo 0 > /proc/sys/kernel/printk

xr_dir=/sys/kernel/debug/test_crossrelease
xr_load() {
	[ -w $xr_dir/run ] || modprobe test_crossrelease ||
		{ echo "(no test_crossrelease module)"; return 1; }
}
# Run one scenario of lib/test_crossrelease.c.
xr_scenario() {
	xr_load || return
	sh -c "echo $1 > $xr_dir/run"	# a process of its own, see the module
}
# Say so if the kernel does not track this kind of crosslock.
xr_needs() {
	xr_load || return
	grep -q "^$1 1" $xr_dir/features ||
		echo "(this kernel does not track $1: no report expected here)"
}
# Lockdep reports once per boot: scripts/demo.sh boots once per scenario
# and names it with xr.demo=<file name>[,<file name>...] (quiet ones share
# a boot); without it, run them all.
only=
for arg in $(cat /proc/cmdline); do
	case $arg in xr.demo=*) only=${arg#xr.demo=} ;; esac
done

for s in /xr/demo.d/*.sh; do
	case ",$only," in ",,"|*",$(basename "$s"),"*) ;; *) continue ;; esac
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
	# followed by the classes it was seen to depend on ("->"); of the
	# kernel-wide folio lock class only its dependencies on the demo's
	awk '/^[^ ]/ { cls = $0; own = /xr_/; pg = /PG_locked/; shown = 0 }
	     /^[^ ]/ && own { print; next }
	     own && /->/ { print; next }
	     pg && /->.*xr_/ { if (!shown) print cls; shown = 1; print }' \
		/proc/lockdep | grep . || echo "(none recorded)"
else
	echo "(no /proc/lockdep)"
fi
