#!/usr/bin/env bash
# make test: KUnit and the kselftests in QEMU, then "N passed, N failed".
# A crossrelease report leaves lockdep on, so one boot runs every
# crossrelease KUnit suite (kunit.filter_glob=crossrelease*), report cases
# included, and then the crossrelease kselftests.  What switches lockdep
# off gets a boot of its own, chosen with KUnit's kunit.filter_glob or the
# kselftest's own argument:
#   - the lockdep_capture suite, whose last case is a plain lockdep report;
#   - the dma_fence_annotation suite: the upstream dma-fence annotation's
#     own report, a plain one;
#   - each case of lockdep_go_on: a plain ABBA after a crossrelease
#     report, a plain report;
#   - crossrelease.xr_cycle_reported once more with
#     crossrelease.max_reports=0 (the one-shot mode);
#   - the demo (guest/demo.sh): every scenario, the last marked "alone"
#     in the kselftest's "scenarios" file at its end;
#   - each other scenario marked "alone";
#   - guest/folio_lock_off.sh, with folio-lock tracking off.
#   test.sh <variant> [extra kernel args...]     (ARCH=arm64: the arm64 kernel)
set -euo pipefail
. "$(dirname "$0")/common.sh"
V=${1:-xr}; shift || true
L=$V$ASUF	# log names: xr-..., xr-arm64-...
LOGS=$BUILD/logs
ALL=$LOGS/$L-test-all.log
ST=$ROOT/tools/testing/selftests/crossrelease

say "test[$ARCH]: crossrelease KUnit suites and kselftests: one boot"
bash "$ROOT/scripts/boot.sh" "$V" test "kunit.filter_glob=crossrelease*" "$@"
cp "$LOGS/$L-test.log" "$ALL"

# A boot of its own: a boot that does not finish (a hang, or TCG stalling
# on a loaded host) is retried once, then counted as a failed case.
own_boot() { # what, log name, boot.sh args...
	local what=$1 log=$2; shift 2
	say "test: $what: own boot"
	if XR_TIMEOUT=${XR_CASE_TIMEOUT:-240} XR_LOG_NAME=$log bash "$ROOT/scripts/boot.sh" -q "$V" "$@" > /dev/null ||
	   { warn "test: $what: boot did not finish, retrying"
	     XR_TIMEOUT=${XR_CASE_TIMEOUT:-240} XR_LOG_NAME=$log bash "$ROOT/scripts/boot.sh" -q "$V" "$@" > /dev/null; }; then
		cat "$LOGS/$log.log" >> "$ALL"
	else
		printf 'KTAP version 1\n1..1\nnot ok 1 %s # boot did not finish\n' "$what" >> "$ALL"
	fi
}

# The report is the last case of these boots: lockdep stays off after it
# (lockdep_kunit.rearm=0), since re-arming races with other tasks that
# took a lock while it was off ("bad unlock balance"); make kunit, one
# boot for every suite, re-arms.
own_boot "lockdep_capture (ends with a plain report)" "$L-capture" \
	kunit kunit.filter_glob=lockdep_capture lockdep_kunit.rearm=0 "$@"
own_boot "dma_fence_annotation (a plain report)" "$L-annotation" \
	kunit kunit.filter_glob=dma_fence_annotation lockdep_kunit.rearm=0 "$@"
# After a crossrelease report (and with the budget of full reports spent),
# a plain ABBA is reported as without crossrelease: a plain report
for c in xr_go_on_then_abba xr_budget_spent_then_abba; do
	own_boot "lockdep_go_on.$c (ends with a plain report)" "$L-$c" \
		kunit kunit.filter_glob=lockdep_go_on.$c lockdep_kunit.rearm=0 "$@"
done
own_boot "crossrelease.max_reports=0" "$L-oneshot" \
	kunit kunit.filter_glob=crossrelease.xr_cycle_reported crossrelease.max_reports=0 \
	lockdep_kunit.rearm=0 "$@"
# The demo (guest/demo.sh, what make shows) is checked in the boot that an
# "alone" scenario needs anyway: it plays every scenario whose report
# leaves lockdep on, each checked by run_scenarios.sh NAME, then the last
# "alone" one, so this boot replaces that scenario's own boot (CI time: the
# scenarios' run, ~13 s under TCG, instead of one more boot).  Its KTAP goes
# to the same count: a scenario that does not show its report fails make
# test.  The other "alone" scenarios get a boot of their own each.
alone=$(awk '!/^#/ && $2 == "alone" { print $1 }' "$ST/scenarios")
shown=$(echo "$alone" | tail -n 1)
own_boot "demo (every scenario, then $shown)" "$L-demo" demo kunit.enable=0 "xr.alone=$shown" "$@"
for s in $alone; do
	[ "$s" != "$shown" ] || continue
	own_boot "scenario $s" "$L-scenario-$s" \
		/xr/kselftest/crossrelease/run_scenarios.sh kunit.enable=0 "xr.args=$s" "$@"
done
own_boot "lockdep_folio_lock=off" "$L-folio_lock_off" \
	/xr/folio_lock_off.sh lockdep_folio_lock=off kunit.enable=0 "$@"

# A suite that is not built (an option lost in a config change) prints no
# results at all; name every suite we expect so that its absence fails.
missing=0
for suite in crossrelease crossrelease_completion crossrelease_folio \
	     crossrelease_chain crossrelease_dma_fence crossrelease_precision \
	     lockdep_capture dma_fence_annotation lockdep_go_on \
	     run_scenarios run_workload run_dmabuf run_lifecycle folio_lock_off; do
	grep -q "# Subtest: $suite\$" <(sed -e 's/\r//' "$ALL") ||
		{ warn "test: suite $suite did not run"; missing=1; }
done
[ -n "$alone" ] || { warn "test: no scenario marked alone in $ST/scenarios"; missing=1; }
# the demo's KTAP names no suite: its last result says it ran to its end
grep -q '^ok [0-9]* crosslock dependencies' "$LOGS/$L-demo.log" ||
	{ warn "test: the demo did not finish (see $LOGS/$L-demo.log)"; missing=1; }

say "test: results from $ALL"
python3 "$ROOT/scripts/ktap.py" --marker=XR-END "$ALL"
[ $missing = 0 ] || die "test: expected suites missing (see above)"
