#!/usr/bin/env bash
# make xfstests: fstests (xfstests) under crossrelease, the kvm-xfstests
# shape.  A Debian bookworm root file system built with mmdebstrap from the
# host's apt mirror, xfstests built inside it (chroot), a kernel booted in
# QEMU (TCG) with that image as its root (/dev/vda, a snapshot: the cached
# image stays clean), a test disk (/dev/vdb) and scratch disks (/dev/vdc,
# and /dev/vdd-vdf for btrfs's SCRATCH_DEV_POOL), running ./check; the
# results come back through a 9p share.
#   xfstests.sh [all|deps|rootfs|image|kernel|run|table|list|control]   (default all:
#   deps image kernel run; run ends with the table; list: the tests a run
#   would pass to ./check; control: V=plain on what failed or did not
#   finish with V=xr, and a sample of SAMPLE (20) passed tests)
# Env: FS (ext4|xfs|btrfs, several space-separated; default ext4),
#      TESTS ("generic/001 ext4/001 ..."), GROUP (check -g), EXCLUDE
#      (check -e), LIST (a test list, one test a line, # comments; without
#      TESTS, GROUP and LIST: xfstests/<fs>.list, else the smoke list
#      generic/001 002 005 and <fs>/001), SHARD (i/n: the list's lines
#      i, i+n, i+2n, ...; a line "-test" keeps its place but is not run;
#      shards merge into one table), V (xr: crossrelease on;
#      plain: the same kernel with crossrelease=off, the control),
#      XFSTESTS (a user's xfstests checkout; default the release tarball
#      ../shared/xfstests/), XFSTESTS_KV (kernel variant, default xfstests:
#      build/out-<KV>), XFSTESTS_KERNEL (a bzImage to boot as is; no build),
#      XFSTESTS_MEM (2G), XFSTESTS_TIMEOUT (s per boot, 3600),
#      XFSTESTS_DISK (size of each test/scratch disk, sparse, 5G).
# Output (build/xfstests/): rootfs/ and root.img (the cached image),
# results/<fs>/<V>/<run>/ (xfstests' results directory: check.log,
# result.xml, per-test .out.bad/.full/.dmesg; console.log; lockdep/<test>.txt,
# the lockdep reports of each test), results/<fs>/<V>/tests.tsv (one line
# per test, merged over runs) and the summary line per file system.
set -euo pipefail
. "$(dirname "$0")/common.sh"
xr_lib		# report_re, crash_re
XD=$ROOT/build/xfstests
R=$XD/rootfs
SUITE=bookworm
TARBALL=$ROOT/../shared/xfstests/xfstests-v2026.01.27.tar.xz
KV=${XFSTESTS_KV:-xfstests}
VV=${V:-xr}
case $VV in xr|plain) ;; *) die "V=$VV: xr or plain" ;; esac
[ "$BASE" = 6.1 ] && RD=$XD/results || RD=$XD/results-$BASE
[ "$KV" = xfstests ] || RD=$RD-$KV	# another kernel's results apart
[ "$ARCH" = x86_64 ] || die "xfstests: x86_64 only (the image is built for the host)"
# What xfstests needs at run time, and to build (its README; no udev, no
# systemd: /sbin/xr-init is PID 1, dm devices are made with DM_DISABLE_UDEV)
RUN_PKGS=(bash perl python3 xfsprogs xfsdump e2fsprogs btrfs-progs attr acl quota
	fio dbench psmisc bc gawk sed util-linux procps kmod file uuid-runtime
	dmsetup libcap2-bin bsdextrautils)
BUILD_PKGS=(make gcc libc6-dev autoconf automake libtool libtool-bin pkgconf
	uuid-dev libattr1-dev libacl1-dev libaio-dev liburing-dev xfslibs-dev
	libgdbm-dev libgdbm-compat-dev libcap-dev)
STEP=${1:-all}
shift $(( $# > 0 ))
mkdir -p "$XD"

deps() {
	command -v mmdebstrap >/dev/null && { say "xfstests: mmdebstrap present"; return; }
	say "xfstests: apt-get install mmdebstrap"
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends mmdebstrap
}

# mirror NAME: the host's apt URI ending in /NAME (debian, debian-security)
mirror() {
	local u
	u=$({ sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources
	      sed -nE 's/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+).*/\2/p' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list; } 2>/dev/null |
		tr ' ' '\n' | grep -E "/$1/?\$" || true)
	u=${u%%$'\n'*}
	echo "${u:-http://deb.debian.org/$1}"
}

# the source of xfstests and its identity (a checkout: its files' names,
# sizes and mtimes, .git left out)
src_id() {
	if [ -n "${XFSTESTS:-}" ]; then
		[ -f "$XFSTESTS/check" ] || die "XFSTESTS=$XFSTESTS: no xfstests checkout (no ./check)"
		(cd "$XFSTESTS" && find . -path ./.git -prune -o -type f -printf '%P %s %T@\n' | sort | sha256sum | cut -c1-16)
	else
		[ -f "$TARBALL" ] || die "no $TARBALL (see ../shared/xfstests/README.md), or set XFSTESTS=<checkout>"
		sha256sum "$TARBALL" | cut -c1-16
	fi
}

# busy ROOT: something is mounted under it (never rm -rf then)
busy() { awk -v r="$1" '$2 == r || index($2, r "/") == 1 { f = 1 } END { exit !f }' /proc/mounts; }
# in_root CMD: CMD in the rootfs, with /proc and /dev in a mount namespace
# of its own (they go away with it)
in_root() {
	unshare -m --propagation private sh -c 'mount -t proc proc "$1/proc" &&
		mount --rbind /dev "$1/dev" && shift && exec chroot "$@"' - "$R" "$R" "$@"
}

rootfs() {
	local m s key t0=$SECONDS
	m=$(mirror debian); s=$(mirror debian-security)
	key=$(printf '%s\n' "$SUITE" "$m" "$s" "${RUN_PKGS[@]}" "${BUILD_PKGS[@]}" | sha256sum | cut -c1-16)
	if [ "$(cat "$R/.xr-rootfs" 2>/dev/null)" = "$key" ]; then
		say "xfstests: rootfs cached ($R, packages $key)"; return
	fi
	busy "$R" && die "something is mounted under $R"
	rm -rf "$R" "$R.new" "$XD/xfstests.stamp" "$XD/root.img"
	say "xfstests: mmdebstrap $SUITE from $m (+ ${SUITE}-updates, $s), ${#RUN_PKGS[@]} + ${#BUILD_PKGS[@]} packages"
	nice -n 19 mmdebstrap --variant=minbase --mode=root --format=directory \
		--aptopt='APT::Install-Recommends "false"' \
		--include="$(IFS=,; echo "${RUN_PKGS[*]},${BUILD_PKGS[*]}")" \
		--customize-hook='chroot "$1" sh -c "useradd -m fsgqa && useradd -m fsgqa2 &&
			{ useradd -m 123456-fsgqa || useradd --badname -m 123456-fsgqa; } &&
			echo xfstests > /etc/hostname"' \
		"$SUITE" "$R.new" "deb $m $SUITE main" "deb $m $SUITE-updates main" "deb $s $SUITE-security main"
	echo "$key" > "$R.new/.xr-rootfs"
	mv "$R.new" "$R"
	say "xfstests: rootfs built in $(( (SECONDS - t0) / 60 ))m$(( (SECONDS - t0) % 60 ))s, $(du -sh "$R" | cut -f1)"
}

# xfstests from the checkout or the tarball, built in the rootfs (/opt/xfstests)
xfsbuild() {
	local id t0=$SECONDS
	id=$(src_id)
	if [ "$(cat "$XD/xfstests.stamp" 2>/dev/null)" = "$id" ]; then
		say "xfstests: xfstests built ($id)"; return
	fi
	rm -rf "$R/opt/xfstests" "$XD/root.img"
	mkdir -p "$R/opt/xfstests"
	if [ -n "${XFSTESTS:-}" ]; then
		say "xfstests: copying $XFSTESTS (without .git) to $R/opt/xfstests"
		tar -C "$XFSTESTS" --exclude=./.git -cf - . | tar -C "$R/opt/xfstests" -xf -
	else
		say "xfstests: extracting $(basename "$TARBALL")"
		tar -C "$R/opt/xfstests" --strip-components=1 -xJf "$TARBALL"
	fi
	say "xfstests: make -j2 in the image (chroot, nice)"
	in_root nice -n 19 sh -c 'cd /opt/xfstests && make -j2' > "$XD/make.log" 2>&1 ||
		{ tail -30 "$XD/make.log"; die "xfstests build failed, see $XD/make.log"; }
	[ -x "$R/opt/xfstests/ltp/fsstress" ] || die "xfstests built no ltp/fsstress, see $XD/make.log"
	echo "$id" > "$XD/xfstests.stamp"
	say "xfstests: built in $(( (SECONDS - t0) / 60 ))m$(( (SECONDS - t0) % 60 ))s"
}

# root.img: an ext4 image of the rootfs, with guest/xfstests-init as /sbin/xr-init
image() {
	local key t0=$SECONDS
	rootfs
	xfsbuild
	key=$(cat "$R/.xr-rootfs" "$XD/xfstests.stamp" "$ROOT/guest/xfstests-init" | sha256sum | cut -c1-16)
	if [ -f "$XD/root.img" ] && [ "$(cat "$XD/root.img.stamp" 2>/dev/null)" = "$key" ]; then
		say "xfstests: image cached ($XD/root.img)"; return
	fi
	install -m755 "$ROOT/guest/xfstests-init" "$R/sbin/xr-init"
	rm -f "$XD/root.img" "$XD/root.img.new"
	truncate -s 4G "$XD/root.img.new"
	say "xfstests: mkfs.ext4 -d $R (4G sparse)"
	nice -n 19 mkfs.ext4 -q -F -L xfstests-root -d "$R" "$XD/root.img.new"
	mv "$XD/root.img.new" "$XD/root.img"
	echo "$key" > "$XD/root.img.stamp"
	say "xfstests: image $XD/root.img: $(du -h "$XD/root.img" | cut -f1) used of 4G, in $(( SECONDS - t0 ))s"
}

kernel() {
	if [ -n "${XFSTESTS_KERNEL:-}" ]; then say "xfstests: kernel $XFSTESTS_KERNEL (as is)"; return; fi
	bash "$ROOT/scripts/build.sh" "$KV"
}

# select_tests FS: TESTS, else (without GROUP) LIST or xfstests/FS.list,
# shard i of n of it (SHARD=i/n), else the smoke list
select_tests() {
	local fs=$1 list=${LIST:-$ROOT/xfstests/$1.list} i n
	if [ -n "${TESTS:-}" ] || [ -n "${GROUP:-}" ]; then echo "${TESTS:-}"; return; fi
	if [ -n "${LIST:-}" ] || [ -f "$list" ]; then
		[ -f "$list" ] || die "LIST=$list: no such file"
		i=${SHARD:-1/1}; n=${i#*/}; i=${i%/*}
		[[ $i =~ ^[0-9]+$ && $n =~ ^[0-9]+$ ]] && (( i >= 1 && i <= n )) || die "SHARD=$SHARD: i/n, 1 <= i <= n"
		sed 's/#.*//' "$list" | awk -v i="$i" -v n="$n" 'NF { if (k++ % n == i - 1 && $1 !~ /^-/) print $1 }' | xargs
		say "xfstests[$fs]: $(basename "$list"), shard $i/$n" >&2
		return
	fi
	echo "generic/001 generic/002 generic/005 $fs/001"
}

# boot FS: one QEMU boot running ./check on FS; results to $RD/FS/$VV/<run>
boot() {
	local fs=$1 run share out log d drives kernel t0=$SECONDS rc=0 kargs=""
	shift
	kernel=${XFSTESTS_KERNEL:-$OUTROOT/out-$KV/$KIMAGE}
	[ -f "$kernel" ] || die "no kernel $kernel (XFSTESTS_KV=$KV; make xfstests builds it)"
	[ -f "$XD/root.img" ] || die "no $XD/root.img: run $0 image"
	run=$(date -u +%Y%m%d-%H%M%S)
	share=$XD/run; out=$RD/$fs/$VV/$run
	rm -rf "$share"; mkdir -p "$share/results" "$out"
	# the guest's scripts and the job, through the 9p share
	cp "$ROOT/guest/xfstests.sh" "$ROOT/guest/lib.sh" "$ROOT/tools/testing/selftests/crossrelease/ktap_helpers.sh" "$share/"
	local mods=$OUTROOT/initramfs-$KV/lib/modules
	[ ! -d "$mods" ] || cp -a "$mods" "$share/modules"
	# the kernel's configuration, for the tests that require a symbol (/boot/config-*)
	[ -n "${XFSTESTS_KERNEL:-}" ] || cp "$OUTROOT/out-$KV/.config" "$share/config"
	local tests
	tests=$(select_tests "$fs")
	[ -n "$tests${GROUP:-}" ] || die "no tests selected"
	{ echo "FS='$fs'"; echo "TESTS='$tests'"; echo "GROUP='${GROUP:-}'"
	  echo "EXCLUDE='${EXCLUDE:-}'"; echo "V='$VV'"; } > "$share/job.env"
	drives="-drive file=$XD/root.img,if=virtio,format=raw,snapshot=on"
	for d in vdb vdc vdd vde vdf; do	# test, scratch, and three more for btrfs's pool
		rm -f "$XD/$d.img"; truncate -s "${XFSTESTS_DISK:-5G}" "$XD/$d.img"
		drives+=" -drive file=$XD/$d.img,if=virtio,format=raw,cache=unsafe"
	done
	[ "$VV" = plain ] && kargs="crossrelease=off"
	log=$out/console.log
	say "xfstests[$fs/$VV]: boot $kernel (TCG, 2 vCPUs, ${XFSTESTS_MEM:-2G}), tests: ${tests:-group $GROUP}"
	say "xfstests[$fs/$VV]: console $log"
	# shellcheck disable=SC2086
	timeout --foreground -k 10 "${XFSTESTS_TIMEOUT:-3600}" "${QEMU[@]}" -smp 2 -m "${XFSTESTS_MEM:-2G}" \
		-nographic -no-reboot -kernel "$kernel" $drives \
		-virtfs "local,path=$share,mount_tag=xr,security_model=none,id=xr" \
		-append "console=$CONSOLE root=/dev/vda rw rootfstype=ext4 init=/sbin/xr-init panic=-1 log_buf_len=8M watchdog_thresh=60 $kargs $*" \
		</dev/null 2>&1 | stdbuf -oL tr -d '\r' | tee "$log" | sed -u -n '/XR-BEGIN/,$p' |
		grep --line-buffered -vE '^\[ *[0-9]+\.[0-9]+\] ' || true
	rm -f "$XD"/vd?.img
	grep -q XR-END "$log" || { warn "guest did not reach XR-END (timeout or crash), see $log"; rc=1; }
	# xfstests' results directory (RESULT_BASE, section-less: check.log, result.xml, ...)
	cp -a "$share/results/." "$out/"
	{ echo "# host_ms: $(( (SECONDS - t0) * 1000 ))"; echo "# boot_rc: $rc"; } >> "$log"
	ln -sfn "$run" "$RD/$fs/$VV/latest"
	say "xfstests[$fs/$VV]: boot done in $(( (SECONDS - t0) / 60 ))m$(( (SECONDS - t0) % 60 ))s (rc=$rc), results $out"
	python3 "$ROOT/scripts/xfstests-table.py" --report-re "$report_re" --crash-re "$crash_re" \
		--merge "$out" "$RD/$fs/$VV" || rc=1
	return $rc
}

table() {
	local fs
	for fs in ${FS:-ext4}; do
		python3 "$ROOT/scripts/xfstests-table.py" --triage "$ROOT/xfstests/triage.tsv" --summary "$fs" "$RD/$fs"
	done
}

run() {
	local fs rc=0
	for fs in ${FS:-ext4}; do
		case $fs in ext4|xfs|btrfs) ;; *) die "FS=$fs: ext4, xfs or btrfs" ;; esac
		boot "$fs" "$@" || rc=1
	done
	table
	return $rc
}

# control: the plain-lockdep control of what ran with crossrelease: per FS,
# V=plain on the tests that failed or did not finish there (status fail or
# ?) and a sample of SAMPLE (20) passed ones, spread over them (of those
# that took 5 minutes at most: the longer ones are dropped from the lists)
control() {
	local fs tsv failed sample
	for fs in ${FS:-ext4}; do
		tsv=$RD/$fs/xr/tests.tsv
		[ -f "$tsv" ] || die "no $tsv: run with V=xr first"
		failed=$(awk -F'\t' 'NR > 1 && ($2 == "fail" || $2 == "?") { print $1 }' "$tsv" | xargs)
		sample=$(awk -F'\t' -v n="${SAMPLE:-20}" 'NR > 1 && $2 == "pass" && $3 <= 300 { p[k++] = $1 }
			END { s = k > n ? k / n : 1; for (i = 0; i < k && c < n; i += s) { print p[int(i)]; c++ } }' "$tsv" | xargs)
		say "xfstests[$fs]: control (V=plain): failed or unfinished with crossrelease: ${failed:-none}; sample: $sample"
		FS=$fs TESTS="$failed $sample" V=plain bash "$0" run "$@" || true
	done
}

list() { local fs; for fs in ${FS:-ext4}; do select_tests "$fs"; done; }

case $STEP in
all)   deps; image; kernel; run "$@" ;;
deps|rootfs|image|kernel|run|table|list|control) $STEP "$@" ;;
*)     die "unknown step '$STEP' (all|deps|rootfs|image|kernel|run|table|list|control)" ;;
esac
