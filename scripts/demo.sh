#!/usr/bin/env bash
# make (demo): boot the kernel once and run the deadlock scenarios of the
# test_crossrelease module (tools/testing/selftests/crossrelease/scenarios)
# with guest/demo.sh: every scenario whose report leaves lockdep on, then
# one marked "alone", whose plain lockdep report switches lockdep off
# (ARGS=xr.alone=NAME picks which; default the last of the file).  Then
# the demo's results counted as make test counts them (scripts/ktap.py):
# it fails if a scenario did not show what it expects.
#   demo.sh <variant> [extra kernel args...]
set -euo pipefail
. "$(dirname "$0")/common.sh"
V=${1:-xr}; shift || true
say "demo: every scenario, one boot"
bash "$ROOT/scripts/boot.sh" -q "$V" demo kunit.enable=0 "$@" | grep -v -E '^XR-(BEGIN|END)'
LOG=$BUILD/logs/${XR_LOG_NAME:-$V$ASUF-demo}.log
say "demo: results from $LOG"
python3 "$ROOT/scripts/ktap.py" --marker=XR-END "$LOG"
