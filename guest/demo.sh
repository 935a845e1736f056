#!/bin/sh
# Guest demo (make): run the deadlock scenarios of the test_crossrelease
# module listed in the kselftest's "scenarios" file, print the kernel log
# each one produced (its lockdep report) and what was checked, then the
# crosslock dependencies lockdep recorded.  One KTAP document (guest/lib.sh):
# one result per scenario, then one for the dependencies.
#
# Order.  A crossrelease report leaves lockdep on, so every scenario not
# marked "alone" runs first, in file order, and shows its report in this
# one boot.  A scenario marked "alone" ends with a plain lockdep report,
# which switches lockdep off for the rest of the boot: one boot can show
# only one of them, so one runs last, the one named by xr.alone=NAME on the
# kernel command line (make ARGS=xr.alone=NAME), by default the last of the
# file (abba).  The other "alone" scenarios are not run: "ok # SKIP"; make
# test runs each in a boot of its own (run_scenarios.sh NAME).
#
# Checks.  Each scenario is checked by the kselftest's own checks,
# run_scenarios.sh NAME, nested as its subtest: expect report or wait, a
# lockdep report in the dmesg the scenario produced and lockdep still on
# (debug_locks 1); quiet, no report and lockdep on; alone, a report.  Its
# result is ok only if they pass (make test counts them).  A scenario whose
# feature this kernel does not track (the module's "features") runs for its
# kernel log only: "ok # SKIP".
#
# Reports are printed below from dmesg, not on the console as well: at
# console loglevel 0 even lockdep's console_verbose() leaves it silent.
echo 0 > /proc/sys/kernel/printk

xr_dir=/sys/kernel/debug/test_crossrelease
ksft=/xr/kselftest/crossrelease
. /xr/lib.sh
grep -v -e '^#' -e '^[[:space:]]*$' $ksft/scenarios > /tmp/demo.scenarios
kernel_arg alone xr.alone "$(awk '$2 == "alone" { s = $1 } END { print s }' /tmp/demo.scenarios)"
if ! [ -w $xr_dir/run ] && ! modprobe test_crossrelease; then
	# a kernel without crossrelease (make V=plain): nothing to show
	ktap_begin 1
	ktap_ok "demo # SKIP no test_crossrelease module in this kernel"
	exit 0
fi
ktap_begin $(( $(wc -l < /tmp/demo.scenarios) + 1 ))
# shellcheck disable=SC2154 # alone: set by kernel_arg
echo "# the scenarios that leave lockdep on, then the one that switches it off: $alone"

# show NAME EXPECT FEATURE TITLE: play one scenario, print its kernel log,
# its checks and its result
show() {
	echo
	echo "# ================ scenario $1: $4"
	before=$(dmesg_mark)
	if [ "$3" != lockdep ] && ! grep -q "^$3 1" $xr_dir/features; then
		sh -c "$(scenario_cmd "$1")" < /dev/null	# a process of its own, see the module
		since "$before"
		echo "# ---------------- expected: $2, but this kernel does not track $3"
		ktap_ok "$1 # SKIP $3 not tracked by this kernel"
		return
	fi
	ktap_nest "$1" sh $ksft/run_scenarios.sh "$1" < /dev/null > /tmp/demo.checks
	rc=$?
	since "$before"
	cat /tmp/demo.checks
	echo "# ---------------- expected: $2; lockdep on (debug_locks): $(lockdep_stat debug_locks)"
	ktap_status $rc "$1"
}

while read -r name expect feature _ _ title; do
	[ "$expect" = alone ] || show "$name" "$expect" "$feature" "$title"
done < /tmp/demo.scenarios
while read -r name expect feature _ _ title; do
	[ "$expect" = alone ] || continue
	if [ "$name" = "$alone" ]; then
		show "$name" "$expect" "$feature" "$title"
	else
		echo
		echo "# ================ scenario $name: not run (its report would switch lockdep off before $alone; make ARGS=xr.alone=$name shows it)"
		ktap_ok "$name # SKIP alone: make test runs it in a boot of its own"
	fi
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
