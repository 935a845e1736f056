#!/usr/bin/env bash
# Build build/initramfs-<variant>.cpio: static busybox, guest/ scripts,
# the crossrelease kselftests, the variant's modules, mke2fs + libs.
set -euo pipefail
. "$(dirname "$0")/common.sh"
V=${1:-xr}
OUT=$BUILD/out-$V
STAGE=$BUILD/initramfs-$V
CPIO=$BUILD/initramfs-$V.cpio
[ -f "$OUT/arch/x86/boot/bzImage" ] || die "no kernel for $V: run scripts/build.sh $V"

say "initramfs[$V]: staging in $STAGE"
rm -rf "$STAGE"
mkdir -p "$STAGE"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,etc,xr,root}
install -m755 /bin/busybox "$STAGE/bin/busybox"
file -L /bin/busybox | grep -q 'statically linked' || warn "/bin/busybox is not static"
mknod -m 600 "$STAGE/dev/console" c 5 1
mknod -m 666 "$STAGE/dev/null" c 1 3
install -m755 "$ROOT/guest/init" "$STAGE/init"
cp -a "$ROOT/guest/." "$STAGE/xr/"
rm -f "$STAGE/xr/init"

# The crossrelease kselftests, installed the kselftest way (lib.mk, built
# out of tree), with run_kselftest.sh; and coreutils' timeout, which the
# kselftest runner calls with --foreground (busybox' has no such option).
say "initramfs[$V]: make -C tools/testing/selftests TARGETS=crossrelease install"
(exec 9>"$KLOCK"; flock 9
 make -s -C "$TREE/tools/testing/selftests" O="$OUT/kselftest" TARGETS=crossrelease \
	INSTALL_PATH="$STAGE/xr/kselftest" install)
XR_EXTRA_BINS="timeout ${XR_EXTRA_BINS:-}"

if grep -q '^CONFIG_MODULES=y' "$OUT/.config" && [ -s "$OUT/modules.order" ]; then
	say "initramfs[$V]: modules_install"
	(exec 9>"$KLOCK"; flock 9
	 make -s -C "$TREE" O="$OUT" INSTALL_MOD_PATH="$STAGE" INSTALL_MOD_STRIP=1 modules_install)
fi

say "initramfs[$V]: adding mke2fs and its libraries"
mke2fs=$(command -v mke2fs || echo /sbin/mke2fs)
install -m755 "$(readlink -f "$mke2fs")" "$STAGE/usr/sbin/mke2fs"
for l in mkfs.ext4 mkfs.ext2; do ln -sf mke2fs "$STAGE/usr/sbin/$l"; done
ln -sf ../usr/sbin/mke2fs "$STAGE/sbin/mke2fs"
[ -f /etc/mke2fs.conf ] && cp /etc/mke2fs.conf "$STAGE/etc/"
ldd "$mke2fs" | grep -oE '/[^ ]+' | sort -u | while read -r lib; do
	mkdir -p "$STAGE$(dirname "$lib")"
	cp -L "$lib" "$STAGE$lib"
done
# /lib -> usr/lib style paths resolve via the copied absolute paths above

# Optional (make soak): more host binaries, each at its host path, and
# their libraries: XR_EXTRA_BINS="stress-ng fio ...".
for b in ${XR_EXTRA_BINS:-}; do
	p=$(command -v "$b") || die "initramfs[$V]: $b not found on the host"
	say "initramfs[$V]: adding $p and its libraries"
	mkdir -p "$STAGE$(dirname "$p")"
	install -m755 "$(readlink -f "$p")" "$STAGE$p"
	ldd "$p" | grep -oE '/[^ ]+' | sort -u | while read -r lib; do
		[ -e "$STAGE$lib" ] && continue
		mkdir -p "$STAGE$(dirname "$lib")"
		cp -L "$lib" "$STAGE$lib"
	done
done

say "initramfs[$V]: writing $CPIO"
(cd "$STAGE" && find . -print0 | sort -z | cpio --quiet -o -0 -H newc -R 0:0) > "$CPIO.tmp"
mv "$CPIO.tmp" "$CPIO"
say "initramfs[$V]: $(du -h "$CPIO" | cut -f1)"
