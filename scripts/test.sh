#!/usr/bin/env bash
# make test: KUnit and the kselftests in QEMU, then "N passed, N failed".
# Lockdep reports once per boot, so the main boot skips the KUnit cases
# that expect a report (lockdep_kunit.reports=0) and each of those then
# runs alone in a boot of its own (kunit.filter_glob=suite.case).  So does
# each deadlock scenario of run_scenarios.sh that expects a report
# (xr.scenario=NAME, KUnit off); the main boot runs the quiet ones.
#   test.sh <variant> [extra kernel args...]
set -euo pipefail
. "$(dirname "$0")/common.sh"
V=${1:-xr}; shift || true
LOGS=$BUILD/logs
ALL=$LOGS/$V-test-all.log

bash "$ROOT/scripts/boot.sh" "$V" test lockdep_kunit.reports=0 "$@"
cp "$LOGS/$V-test.log" "$ALL"

# "# Subtest: <suite>" then "ok N <case> # SKIP expects a report: ..."
cases=$(sed -e 's/^\[[ 0-9.]*\] //' "$LOGS/$V-test.log" | awk '
	/# Subtest:/ { suite = $NF }
	/^ *ok [0-9]+ .* # SKIP expects a report/ { print suite "." $3 }')
# A boot of its own for each case, scenario or parameter: seconds.  A boot
# that does not finish (a hang, or TCG stalling on a loaded host) is
# retried once, then counted as a failed case.
own_boot() { # what, boot.sh args...
	local what=$1; shift
	XR_TIMEOUT=${XR_CASE_TIMEOUT:-240} bash "$ROOT/scripts/boot.sh" -q "$V" "$@" > /dev/null && return 0
	warn "test: $what: boot did not finish, retrying"
	XR_TIMEOUT=${XR_CASE_TIMEOUT:-240} bash "$ROOT/scripts/boot.sh" -q "$V" "$@" > /dev/null
}
boot_failed() { # suite, case
	printf 'KTAP version 1\n1..1\n    # Subtest: %s\n    1..1\n    not ok 1 %s # boot did not finish\nnot ok 1 %s\n' \
		"$1" "$2" "$1" >> "$ALL"
}

for c in $cases; do
	say "test: $c expects a lockdep report: own boot"
	if own_boot "$c" kunit "kunit.filter_glob=$c" lockdep_kunit.rearm=0 "$@"; then
		cat "$LOGS/$V-kunit.log" >> "$ALL"
	else
		boot_failed "${c%%.*}" "${c#*.}"
	fi
done

# "ok N <scenario> # SKIP expects a lockdep report: ... (xr.scenario=NAME)"
cp "$LOGS/$V-test.log" "$LOGS/$V-test-main.log"
scenarios=$(grep -oE 'runs in a boot of its own \(xr\.scenario=[A-Za-z0-9_]+\)' \
	"$LOGS/$V-test-main.log" | sed -E 's/.*=(.*)\)/\1/' || true)
for s in $scenarios; do
	say "test: scenario $s expects a lockdep report: own boot"
	if own_boot "$s" test kunit.enable=0 "xr.scenario=$s" "$@"; then
		cp "$LOGS/$V-test.log" "$LOGS/$V-scenario-$s.log"
		cat "$LOGS/$V-test.log" >> "$ALL"
	else
		boot_failed run_scenarios "$s"
	fi
done
cp "$LOGS/$V-test-main.log" "$LOGS/$V-test.log"

# Folio-lock tracking off by the boot parameter: no page_ext, engine on.
say "test: lockdep_pagelock=off: own boot"
if own_boot pagelock_off /xr/pagelock_off.sh lockdep_pagelock=off kunit.enable=0 "$@"; then
	cat "$LOGS/$V-pagelock_off.sh.log" >> "$ALL"
else
	boot_failed pagelock_off boot
fi

# A suite that is not built (an option lost in a config change) prints no
# results at all; name every suite we expect so that its absence fails.
missing=0
for suite in crossrelease crossrelease_completion crossrelease_pagelock \
	     crossrelease_chain crossrelease_dma_fence crossrelease_precision \
	     lockdep_capture \
	     run_scenarios run_workload run_dmabuf pagelock_off; do
	grep -q "# Subtest: $suite\$" <(sed -e 's/\r//' "$ALL") ||
		{ warn "test: suite $suite did not run"; missing=1; }
done

[ -n "$scenarios" ] ||
	{ warn "test: no deadlock scenario ran in a boot of its own (module missing?)"; missing=1; }

say "test: results from $ALL"
python3 "$ROOT/scripts/ktap.py" --marker=XR-END "$ALL"
[ $missing = 0 ] || die "test: expected suites missing (see above)"
