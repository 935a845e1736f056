#!/usr/bin/env bash
# make kunit: the crossrelease KUnit suites with the kernel's own runner,
# tools/testing/kunit/kunit.py, in the assembled tree: it configures from
# kernel/locking/.kunitconfig, builds in build/out-kunit (ccache) and boots
# QEMU (x86_64, TCG).  Extra arguments go to "kunit.py run".
set -euo pipefail
. "$(dirname "$0")/common.sh"
export CCACHE_DIR=${CCACHE_DIR:-$BUILD/ccache}
mkdir -p "$BUILD/logs"
say "kunit: kunit.py run --arch=x86_64 --kunitconfig=kernel/locking (build/out-kunit)"
cd "$TREE"
exec 9>"$KLOCK"
flock 9
./tools/testing/kunit/kunit.py run --arch=x86_64 --kunitconfig=kernel/locking \
	--build_dir="$BUILD/out-kunit" --jobs=2 --timeout=1800 \
	--make_options CC="ccache gcc" --make_options HOSTCC="ccache gcc" "$@" |
	tee "$BUILD/logs/kunit.log"
