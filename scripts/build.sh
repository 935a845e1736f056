#!/usr/bin/env bash
# Configure (when fragments or series changed) and build a kernel variant.
#   build.sh [plain|xr|soak|xfstests|noproc|torture|tables|kcsan] -> build/out-<variant>/arch/x86/boot/bzImage
#   ARCH=arm64 build.sh [plain|xr] -> build/out-<variant>-arm64/arch/arm64/boot/Image
#   (cross-built with Debian's gcc-aarch64-linux-gnu)
# plain and xr start from allnoconfig, with configs/<ARCH>.config after
# debug.config (the architecture's console, interrupt controller, ...); soak (make soak) from x86_64
# defconfig + the tree's kernel/configs/kvm_guest.config; xfstests (make
# xfstests) is soak plus configs/xfstests.config; noproc is xr
# without /proc (CONFIG_PROC_FS=n), built only to show that it links;
# torture (make torture) is xr with lockdep's selftests, the torture
# modules, KASAN and debug objects; tables is xr with the one small table
# that scripts/torture.sh writes to build/tables.config; kcsan is xr with
# KCSAN (torture.sh kcsan).
# A later fragment may override an earlier one's symbol.
set -euo pipefail
. "$(dirname "$0")/common.sh"
V=${1:-xr}
BASE=allnoconfig; TFRAGS=()
DBG=(configs/debug.config "configs/$ARCH.config")
case $V in plain|xr) ;; *) [ "$ARCH" = x86_64 ] || die "variant $V: x86_64 only" ;; esac
case $V in
plain) FRAGS=("${DBG[@]}") ;;
xr)    FRAGS=("${DBG[@]}" configs/crossrelease.config configs/bugs.config) ;;
soak)  FRAGS=(configs/soak.config); BASE=defconfig; TFRAGS=(kernel/configs/kvm_guest.config) ;;
xfstests) FRAGS=(configs/soak.config configs/xfstests.config); BASE=defconfig; TFRAGS=(kernel/configs/kvm_guest.config) ;;
noproc) FRAGS=("${DBG[@]}" configs/crossrelease.config configs/noproc.config) ;;
torture) FRAGS=("${DBG[@]}" configs/crossrelease.config configs/torture.config) ;;
kcsan)  FRAGS=("${DBG[@]}" configs/crossrelease.config configs/kcsan.config) ;;
tables) [ -f "$BUILD/tables.config" ] || die "tables: write build/tables.config first (scripts/torture.sh does)"
	FRAGS=("${DBG[@]}" configs/crossrelease.config build/tables.config) ;;
*)     die "unknown variant '$V' (plain|xr|soak|xfstests|noproc|torture|tables|kcsan)" ;;
esac
# every variant but plain tests dma-fences: with the base's dma-buf tests
DMABUF=configs/dmabuf.config
[ "$BDIR" != "$ROOT" ] && [ -f "$BDIR/configs/dmabuf.config" ] && DMABUF=${BDIR#"$ROOT"/}/configs/dmabuf.config
[ "$V" = plain ] || FRAGS+=("$DMABUF")
# and what a base needs of its own for a variant (7.3: KUnit's autorun)
[ "$BDIR" != "$ROOT" ] && [ -f "$BDIR/configs/$V.config" ] && FRAGS+=("${BDIR#"$ROOT"/}/configs/$V.config")
OUT=$OUTROOT/out-$V$ASUF
export CCACHE_DIR=${CCACHE_DIR:-$BUILD/ccache}
# Paths relative to build/ so that clones of the repo share one cache.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$BUILD}
KMAKE=(make -C "$TREE" O="$OUT" -j2 ARCH=$KARCH CROSS_COMPILE=$CROSS CC="ccache ${CROSS}gcc" HOSTCC="ccache gcc" KBUILD_BUILD_USER=xr KBUILD_BUILD_HOST=workbench)
mkdir -p "$OUT" "$CCACHE_DIR"

# Everything below holds the shared kernel build lock.
exec 9>"$KLOCK"
say "build[$V$ASUF]: waiting for $KLOCK" ; flock 9
say "build[$V$ASUF]: got build lock"

cfgstamp=$( { cd "$ROOT"; cat "${FRAGS[@]}"; cat "$BUILD/tree.stamp" 2>/dev/null
	[ $BASE = allnoconfig ] || echo "$BASE ${TFRAGS[*]}"; } | sha256sum | cut -d' ' -f1)
if [ ! -f "$OUT/.config" ] || [ "$(cat "$OUT/.xr-config.stamp" 2>/dev/null)" != "$cfgstamp" ]; then
	say "build[$V$ASUF]: configuring ($BASE + ${TFRAGS[*]} ${FRAGS[*]})"
	rm -f "$OUT/.xr-config.stamp"
	if [ $BASE = allnoconfig ]; then
		(cd "$TREE" && export ARCH=$KARCH CROSS_COMPILE=$CROSS && scripts/kconfig/merge_config.sh -n -O "$OUT" \
			"${FRAGS[@]/#/$ROOT/}" >"$OUT/merge.log" 2>&1) || { cat "$OUT/merge.log"; die "merge_config failed"; }
	else
		"${KMAKE[@]}" -s "$BASE"
		(cd "$TREE" && export ARCH=$KARCH CROSS_COMPILE=$CROSS && scripts/kconfig/merge_config.sh -m -O "$OUT" "$OUT/.config" \
			"${TFRAGS[@]}" "${FRAGS[@]/#/$ROOT/}" >"$OUT/merge.log" 2>&1) || { cat "$OUT/merge.log"; die "merge_config failed"; }
	fi
	"${KMAKE[@]}" -s olddefconfig
	# verify every fragment symbol exists and took its value
	syms=$(cd "$TREE" && find . -name 'Kconfig*' -not -path './.git/*' -print0 |
		xargs -0 sed -nE 's/^[[:space:]]*(menu)?config[[:space:]]+([A-Za-z0-9_]+).*/\2/p' | sort -u)
	bad=0
	declare -A wanted=()	# symbol -> its last line in the fragments
	while read -r line; do
		if [[ $line =~ ^CONFIG_([A-Za-z0-9_]+)=(.*)$ ]]; then
			wanted[${BASH_REMATCH[1]}]="CONFIG_${BASH_REMATCH[1]}=${BASH_REMATCH[2]}"
		elif [[ $line =~ ^#\ CONFIG_([A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
			wanted[${BASH_REMATCH[1]}]="# CONFIG_${BASH_REMATCH[1]} is not set"
		fi
	done < <(cd "$ROOT" && cat "${FRAGS[@]}")
	for s in "${!wanted[@]}"; do
		want=${wanted[$s]}
		if ! grep -qxF "$s" <<<"$syms"; then
			echo "!!   CONFIG_$s: no such Kconfig symbol in the tree"; bad=1; continue
		fi
		got=$(grep -E "^(# )?CONFIG_$s[= ]" "$OUT/.config" || true)
		if [[ $want == "# "* ]]; then
			[[ -z $got || $got == "$want" ]] && continue
		else
			[[ $got == "$want" ]] && continue
		fi
		echo "!!   wanted '$want', got '${got:-<absent: unmet dependency>}'"; bad=1
	done
	[ $bad = 0 ] || die "config fragments did not apply (see above) for variant $V"
	echo "$cfgstamp" > "$OUT/.xr-config.stamp"
	say "build[$V$ASUF]: config verified"
fi

say "build[$V$ASUF]: make $KTARGET modules (-j2, ccache in $CCACHE_DIR)"
"${KMAKE[@]}" -s $KTARGET modules
say "build[$V$ASUF]: done: $OUT/$KIMAGE"
