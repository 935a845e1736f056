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
for c in $cases; do
	say "test: $c expects a lockdep report: own boot"
	bash "$ROOT/scripts/boot.sh" -q "$V" kunit "kunit.filter_glob=$c" "$@" > /dev/null
	cat "$LOGS/$V-kunit.log" >> "$ALL"
done

# "ok N <scenario> # SKIP expects a lockdep report: ... (xr.scenario=NAME)"
cp "$LOGS/$V-test.log" "$LOGS/$V-test-main.log"
scenarios=$(grep -oE 'runs in a boot of its own \(xr\.scenario=[A-Za-z0-9_]+\)' \
	"$LOGS/$V-test-main.log" | sed -E 's/.*=(.*)\)/\1/' || true)
for s in $scenarios; do
	say "test: scenario $s expects a lockdep report: own boot"
	bash "$ROOT/scripts/boot.sh" -q "$V" test kunit.enable=0 "xr.scenario=$s" "$@" > /dev/null
	cp "$LOGS/$V-test.log" "$LOGS/$V-scenario-$s.log"
	cat "$LOGS/$V-test.log" >> "$ALL"
done
cp "$LOGS/$V-test-main.log" "$LOGS/$V-test.log"

# A suite that is not built (an option lost in a config change) prints no
# results at all; name every suite we expect so that its absence fails.
missing=0
for suite in crossrelease crossrelease_completion lockdep_capture run_workload run_scenarios; do
	grep -q "# Subtest: $suite\$" <(sed -e 's/\r//' "$ALL") ||
		{ warn "test: suite $suite did not run"; missing=1; }
done

[ -n "$scenarios" ] ||
	{ warn "test: no deadlock scenario ran in a boot of its own (module missing?)"; missing=1; }

say "test: results from $ALL"
python3 "$ROOT/scripts/ktap.py" --marker=XR-END "$ALL"
[ $missing = 0 ] || die "test: expected suites missing (see above)"
