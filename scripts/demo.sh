#!/usr/bin/env bash
# make (demo): boot the kernel once and run every deadlock scenario of the
# test_crossrelease module (tools/testing/selftests/crossrelease/scenarios):
# a crossrelease report leaves lockdep on, so they all fit in one boot.
#   demo.sh <variant> [extra kernel args...]
set -euo pipefail
. "$(dirname "$0")/common.sh"
V=${1:-xr}; shift || true
say "demo: every scenario, one boot"
bash "$ROOT/scripts/boot.sh" -q "$V" demo kunit.enable=0 "$@" | grep -v -E '^XR-(BEGIN|END)'
