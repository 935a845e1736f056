#!/usr/bin/env bash
# Profile the file-system throughput row of "make bench" in the xr kernel:
# Debian's perf goes into the initramfs, guest/profile.sh records the
# xr_filework rounds and prints the hottest kernel symbols (its KTAP
# document's diagnostics and figures).
#   profile.sh [extra kernel args, e.g. crossrelease=off xr.fsrounds=10]
set -euo pipefail
. "$(dirname "$0")/common.sh"
if ! command -v perf >/dev/null; then
	[ "$(id -u)" = 0 ] && SUDO="" || SUDO=sudo
	say "profile: installing linux-perf"
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends linux-perf
fi
XR_EXTRA_BINS="perf" bash "$ROOT/scripts/initramfs.sh" xr
say "profile: xr kernel, args: kunit.enable=0 $*"
bash "$ROOT/scripts/boot.sh" -q xr /xr/profile.sh kunit.enable=0 "$@" | grep -E '^(#|ok|not ok) '
