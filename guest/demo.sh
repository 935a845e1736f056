#!/bin/sh
# Guest demo: run every deadlock scenario of the test_crossrelease module,
# in the order of the kselftest's "scenarios" file, print the kernel log
# each one produced and whether lockdep is still on, then the crosslock
# dependencies lockdep recorded.  A crossrelease report leaves lockdep on,
# so one boot shows them all; "abba", a plain lockdep report that switches
# lockdep off, comes last.  A KTAP document (guest/lib.sh): one result per
# scenario (ok if it ran to its end), after the kernel log it produced; the
# last one lists the dependencies.
# Reports are printed below from dmesg, not on the console as well: at
# console loglevel 0 even lockdep's console_verbose() leaves it silent.
echo 0 > /proc/sys/kernel/printk

xr_dir=/sys/kernel/debug/test_crossrelease
table=/xr/kselftest/crossrelease/scenarios
. /xr/lib.sh
scenarios() { grep -v -e '^#' -e '^[[:space:]]*$' $table; }
ktap_begin $(( $(scenarios | wc -l) + 1 ))
[ -w $xr_dir/run ] || modprobe test_crossrelease ||
	{ echo "# no test_crossrelease module"; exit 1; }

scenarios > /tmp/demo.scenarios
while read -r name expect feature from to title; do
	echo
	echo "# ================ scenario $name: $title"
	[ "$feature" = lockdep ] || grep -q "^$feature 1" $xr_dir/features ||
		echo "# (this kernel does not track $feature: no report expected here)"
	before=$(dmesg_mark)
	sh -c "$(scenario_cmd "$name")" < /dev/null	# a process of its own, see the module
	rc=$?
	since "$before"
	echo "# ---------------- expected: $expect; lockdep on (debug_locks): $(lockdep_stat debug_locks)"
	ktap_status $rc "$name"
done < /tmp/demo.scenarios
echo
echo "# ================ crosslock dependencies in /proc/lockdep"
if [ -r /proc/lockdep ]; then
	# the demo's classes (crosslocks and the locks around them), each
	# followed by the classes it was seen to depend on ("->"); of the
	# kernel-wide folio lock classes only their dependencies on the demo's
	awk '/^[^ ]/ { cls = $0; own = /xr_/; pg = /PG_locked/; shown = 0 }
	     /^[^ ]/ && own { print; next }
	     own && /->/ { print; next }
	     pg && /->.*xr_/ { if (!shown) print cls; shown = 1; print }' \
		/proc/lockdep | grep . || echo "# (none recorded)"
	ktap_ok "crosslock dependencies in /proc/lockdep"
else
	ktap_ok "crosslock dependencies in /proc/lockdep # SKIP no /proc/lockdep"
fi
