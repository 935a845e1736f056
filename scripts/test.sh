#!/usr/bin/env bash
# make test: KUnit and the kselftests in QEMU, then "N passed, N failed".
# Lockdep reports once per boot, so the main boot skips the KUnit cases
# that expect a report (lockdep_kunit.reports=0) and each of those then
# runs alone in a boot of its own (kunit.filter_glob=suite.case).
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
# One case, one boot: seconds.  A boot that does not finish (TCG on a
# loaded host very rarely stalls early in boot) is retried once, then
# counted as a failed case.
case_boot() {
	XR_TIMEOUT=${XR_CASE_TIMEOUT:-240} bash "$ROOT/scripts/boot.sh" -q "$V" kunit \
		"kunit.filter_glob=$1" lockdep_kunit.rearm=0 "${@:2}" > /dev/null
}
for c in $cases; do
	say "test: $c expects a lockdep report: own boot"
	if case_boot "$c" "$@" || { warn "test: $c: retrying the boot"; case_boot "$c" "$@"; }; then
		cat "$LOGS/$V-kunit.log" >> "$ALL"
	else
		printf 'KTAP version 1\n1..1\n    # Subtest: %s\n    1..1\n    not ok 1 %s # boot did not finish\nnot ok 1 %s\n' \
			"${c%%.*}" "${c#*.}" "${c%%.*}" >> "$ALL"
	fi
done

# Folio-lock tracking off by the boot parameter: no page_ext, engine on.
say "test: lockdep_pagelock=off: own boot"
bash "$ROOT/scripts/boot.sh" -q "$V" /xr/pagelock_off.sh lockdep_pagelock=off "$@" > /dev/null
cat "$LOGS/$V-pagelock_off.sh.log" >> "$ALL"

# A suite that is not built (an option lost in a config change) prints no
# results at all; name every suite we expect so that its absence fails.
missing=0
for suite in crossrelease crossrelease_completion crossrelease_pagelock crossrelease_chain crossrelease_dma_fence lockdep_capture run_workload run_dmabuf pagelock_off; do
	grep -q "# Subtest: $suite\$" <(sed -e 's/\r//' "$ALL") ||
		{ warn "test: suite $suite did not run"; missing=1; }
done

say "test: results from $ALL"
python3 "$ROOT/scripts/ktap.py" --marker=XR-END "$ALL"
[ $missing = 0 ] || die "test: expected suites missing (see above)"
