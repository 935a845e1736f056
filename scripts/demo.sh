#!/usr/bin/env bash
# make (demo): boot the kernel once per scenario in guest/demo.d, since
# lockdep reports only once per boot, and print what each one showed.
# The quiet scenarios (*quiet*.sh, no report expected) share one boot.
#   demo.sh <variant> [extra kernel args...]
set -euo pipefail
. "$(dirname "$0")/common.sh"
V=${1:-xr}; shift || true
boot() { # <comma-separated demo.d file names> [extra kernel args...]
	local files=$1; shift
	bash "$ROOT/scripts/boot.sh" -q "$V" demo lockdep_kunit.reports=0 "xr.demo=$files" "$@" |
		grep -v -E '^XR-(BEGIN|END)'
}
quiet=()
for s in "$ROOT"/guest/demo.d/*.sh; do
	name=$(basename "$s")
	case $name in *quiet*) quiet+=("$name"); continue ;; esac
	say "demo: $name"
	boot "$name" "$@"
done
if [ ${#quiet[@]} -gt 0 ]; then
	list=$(IFS=,; echo "${quiet[*]}")
	say "demo: quiet twins in one boot: $list"
	boot "$list" "$@"
fi
