#!/usr/bin/env bash
# Build build/initramfs-<variant>.cpio: static busybox, guest/ scripts,
# the crossrelease kselftests, the variant's modules, mke2fs + libs.
# ARCH=arm64: build/initramfs-<variant>-arm64.cpio, with the binaries and
# libraries of Debian's arm64 packages (build/arm64-root, see deps.sh) and
# the kselftests cross-compiled.
set -euo pipefail
. "$(dirname "$0")/common.sh"
V=${1:-xr}
OUT=$OUTROOT/out-$V$ASUF
STAGE=$OUTROOT/initramfs-$V$ASUF
CPIO=$OUTROOT/initramfs-$V$ASUF.cpio
[ -f "$OUT/$KIMAGE" ] || die "no kernel for $V$ASUF: run ARCH=$ARCH scripts/build.sh $V"
# Guest binaries come from the host (x86_64) or from build/arm64-root.
HROOT=${SYSROOT:-}
[ -z "$HROOT" ] || [ -f "$HROOT/.done" ] || die "no $HROOT: run ARCH=$ARCH scripts/deps.sh"
gbin() { # <name>: its path on this machine, for the guest's architecture
	if [ -z "$HROOT" ]; then command -v "$1" || { [ -x "/sbin/$1" ] && echo "/sbin/$1"; }; return; fi
	local d
	for d in bin sbin usr/bin usr/sbin; do
		[ -x "$HROOT/$d/$1" ] && { echo "$HROOT/$d/$1"; return; }
	done
	return 1
}
glibs() { # <binary>: the shared libraries and loader it needs, guest paths
	if [ -z "$HROOT" ]; then ldd "$1" | grep -oE '/[^ ]+' | sort -u; return; fi
	local todo=("$1") seen=" " f n d
	"${CROSS}readelf" -l "$1" | sed -n 's/.*program interpreter: \(.*\)]/\1/p'
	while [ ${#todo[@]} -gt 0 ]; do
		f=${todo[0]}; todo=("${todo[@]:1}")
		for n in $("${CROSS}readelf" -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			[[ $seen == *" $n "* ]] && continue
			seen+="$n "
			for d in lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu; do
				[ -e "$HROOT/$d/$n" ] && { echo "/$d/$n"; todo+=("$HROOT/$d/$n"); continue 2; }
			done
			die "initramfs: $n (needed by $f) not in $HROOT"
		done
	done
}

say "initramfs[$V$ASUF]: staging in $STAGE"
rm -rf "$STAGE"
mkdir -p "$STAGE"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,etc,xr,root}
busybox=$(gbin busybox) || die "no busybox"
install -m755 "$busybox" "$STAGE/bin/busybox"
file -L "$busybox" | grep -q 'statically linked' || warn "$busybox is not static"
mknod -m 600 "$STAGE/dev/console" c 5 1
mknod -m 666 "$STAGE/dev/null" c 1 3
install -m755 "$ROOT/guest/init" "$STAGE/init"
cp -a "$ROOT/guest/." "$STAGE/xr/"
rm -f "$STAGE/xr/init"
# Optional (make bugs): a host directory copied to /xr/extra
if [ -n "${XR_EXTRA_DIR:-}" ]; then
	say "initramfs[$V$ASUF]: adding $XR_EXTRA_DIR as /xr/extra"
	mkdir -p "$STAGE/xr/extra"
	cp -a "$XR_EXTRA_DIR/." "$STAGE/xr/extra/"
fi

# The crossrelease kselftests, installed the kselftest way (lib.mk, built
# out of tree), with run_kselftest.sh; and coreutils' timeout, which the
# kselftest runner calls with --foreground (busybox' has no such option).
say "initramfs[$V$ASUF]: make -C tools/testing/selftests TARGETS=crossrelease install"
(exec 9>"$KLOCK"; flock 9
 make -s -C "$TREE/tools/testing/selftests" O="$OUT/kselftest" TARGETS=crossrelease \
	ARCH=$KARCH CROSS_COMPILE=$CROSS \
	INSTALL_PATH="$STAGE/xr/kselftest" install)
XR_EXTRA_BINS="timeout ${XR_EXTRA_BINS:-}"

if grep -q '^CONFIG_MODULES=y' "$OUT/.config" && [ -s "$OUT/modules.order" ]; then
	say "initramfs[$V$ASUF]: modules_install"
	(exec 9>"$KLOCK"; flock 9
	 make -s -C "$TREE" O="$OUT" ARCH=$KARCH CROSS_COMPILE=$CROSS INSTALL_MOD_PATH="$STAGE" INSTALL_MOD_STRIP=1 modules_install)
fi

say "initramfs[$V$ASUF]: adding mke2fs and its libraries"
mke2fs=$(gbin mke2fs) || die "no mke2fs"
install -m755 "$(readlink -f "$mke2fs")" "$STAGE/usr/sbin/mke2fs"
for l in mkfs.ext4 mkfs.ext2; do ln -sf mke2fs "$STAGE/usr/sbin/$l"; done
ln -sf ../usr/sbin/mke2fs "$STAGE/sbin/mke2fs"
[ -f /etc/mke2fs.conf ] && cp /etc/mke2fs.conf "$STAGE/etc/"
glibs "$mke2fs" | while read -r lib; do
	mkdir -p "$STAGE$(dirname "$lib")"
	cp -L "$HROOT$lib" "$STAGE$lib"
done
# /lib -> usr/lib style paths resolve via the copied absolute paths above

# Optional (make soak): more host binaries, each at its host path, and
# their libraries: XR_EXTRA_BINS="stress-ng fio ...".
for b in ${XR_EXTRA_BINS:-}; do
	p=$(gbin "$b") || die "initramfs[$V$ASUF]: $b not found on the host"
	say "initramfs[$V$ASUF]: adding $p and its libraries"
	g=${p#"$HROOT"}
	mkdir -p "$STAGE$(dirname "$g")"
	install -m755 "$(readlink -f "$p")" "$STAGE$g"
	glibs "$p" | while read -r lib; do
		[ -e "$STAGE$lib" ] && continue
		mkdir -p "$STAGE$(dirname "$lib")"
		cp -L "$HROOT$lib" "$STAGE$lib"
	done
done

say "initramfs[$V$ASUF]: writing $CPIO"
(cd "$STAGE" && find . -print0 | sort -z | cpio --quiet -o -0 -H newc -R 0:0) > "$CPIO.tmp"
mv "$CPIO.tmp" "$CPIO"
say "initramfs[$V$ASUF]: $(du -h "$CPIO" | cut -f1)"
