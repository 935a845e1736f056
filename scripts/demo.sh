#!/usr/bin/env bash
# make (demo): boot the kernel once per scenario in guest/demo.d, since
# lockdep reports only once per boot, and print what each one showed.
#   demo.sh <variant> [extra kernel args...]
set -euo pipefail
. "$(dirname "$0")/common.sh"
V=${1:-xr}; shift || true
for s in "$ROOT"/guest/demo.d/*.sh; do
	name=$(basename "$s")
	say "demo: $name"
	bash "$ROOT/scripts/boot.sh" -q "$V" demo lockdep_kunit.reports=0 "xr.demo=$name" "$@" |
		grep -v -E '^XR-(BEGIN|END)'
done
