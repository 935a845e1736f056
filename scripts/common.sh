# Sourced by scripts/*.sh. Common paths and helpers.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
say() { echo ">> $*"; }
warn() { echo "!! WARNING: $*" >&2; }
die() { echo "!! ERROR: $*" >&2; exit 1; }

# Base kernel (make BASE=6.12 ...): 7.3 (default), 6.12 or 6.1.  What is
# particular to 7.3 lives under 7.3/ (6.12's under 6.12/): its pinned
# package (7.3/base.version), its series (7.3/patches/) and the files it
# adds that differ from the root's (7.3/<kernel path>, see 7.3/README.md).
# Its tree, outputs and logs are under build/7.3/; ccache is shared.  The
# root holds 6.1's series (patches/), tree (build/linux) and new files.
BASE=${BASE:-7.3}
case $BASE in
6.1)  BDIR=$ROOT; BUILD=$ROOT/build ;;
6.12) BDIR=$ROOT/6.12; BUILD=$ROOT/build/6.12 ;;
7.3)  BDIR=$ROOT/7.3; BUILD=$ROOT/build/7.3 ;;
*)    die "unsupported BASE '$BASE' (6.1, 6.12 or 7.3)" ;;
esac
PATCHES=$BDIR/patches
export CCACHE_DIR=${CCACHE_DIR:-$ROOT/build/ccache}
# XR_TREE and XR_OUTROOT move the source tree and the build products
# (out-*, initramfs-*) elsewhere: make bugs builds its buggy tree in
# build/bugs/{linux,out-xr}, at the same relative place as build/{linux,
# out-xr}, so that ccache serves it every file the bugs did not change.
TREE=${XR_TREE:-$BUILD/linux}
OUTROOT=${XR_OUTROOT:-$BUILD}
# XR_KLOCK: another lock, for work on another tree while a build holds this one
KLOCK=${XR_KLOCK:-/tmp/kbuild.lock}
GIT_ID=(-c user.name="Crossrelease Dev" -c user.email="dev@crossrelease.invalid")
# shellcheck source=/dev/null
. "$BDIR/base.version"

# Target architecture (make ARCH=arm64 ...): x86_64 (default) or arm64.
# x86_64 keeps its historic names (build/out-<variant>, logs <variant>-*);
# other architectures add a suffix (build/out-<variant>-arm64, ...).
ARCH=${ARCH:-x86_64}
case $ARCH in
x86_64|x86)
	ARCH=x86_64; KARCH=x86; CROSS=""; ASUF=""
	KTARGET=bzImage; KIMAGE=arch/x86/boot/bzImage; CONSOLE=ttyS0
	QEMU=(qemu-system-x86_64 -machine accel=tcg -cpu max) ;;
arm64|aarch64)
	ARCH=arm64; KARCH=arm64; CROSS=aarch64-linux-gnu-; ASUF=-arm64
	KTARGET=Image; KIMAGE=arch/arm64/boot/Image; CONSOLE=ttyAMA0
	QEMU=(qemu-system-aarch64 -machine virt,accel=tcg -cpu cortex-a57)
	# the guest's user space (busybox, mke2fs, timeout, their libraries):
	# Debian's arm64 packages, extracted by deps.sh
	SYSROOT=$BUILD/arm64-root ;;
*)
	die "unsupported ARCH '$ARCH' (x86_64 or arm64)" ;;
esac

# bug_for_base CASE: the make bugs case's info names this base in BASES
# (default 6.1): its bug is in this base's code (bugs.sh, soak.sh)
bug_for_base() {
	# shellcheck source=/dev/null
	[[ " $(. "$ROOT/bugs/$1/info"; echo "${BASES:-6.1}") " == *" $BASE "* ]]
}

# The guest library (guest/lib.sh) on the host, for its report matchers
# (report_re, crash_re, warn_re, hung_re, oom_re, chain_re): one definition
# for the guest's reading of dmesg and the host's reading of console logs.
xr_lib() {
	# shellcheck source=/dev/null
	XR_KSFT=$ROOT/tools/testing/selftests/crossrelease . "$ROOT/guest/lib.sh"
}
