#!/usr/bin/env bash
# make bugs: real kernel deadlocks, written back, and who reports them.
# Each directory bugs/<case>/ holds:
#   info        TITLE, FIXED, SUBSYS, KINDS; EXPECT (|-separated extended
#               regexps the report must all match); BINS (host binaries the
#               guest needs); ARGS (kernel arguments); STILL=yes when the bug
#               is still in the base, with no bug.patch; NEEDS (Kconfig
#               symbols: the case is skipped on a kernel without them);
#               NOTE (why crossrelease misses it, if it does); BASES (the
#               bases whose code has the bug, default 6.1: make BASE=6.12
#               bugs runs the cases for 6.12)
#   bug.patch   a test-only patch on top of the series that writes the bug
#               back (the smallest change that restores the buggy order)
#   trigger.sh  what a user would do, run in the guest (busybox sh)
#   *.c         small programs, built static on the host, next to trigger.sh
# Every bug.patch goes into one buggy tree (build/bugs/linux, built in
# build/bugs/out-xr from ccache); the fixed tree is the series itself
# (build/out-xr, make test's kernel).  Three boots per case: the buggy
# kernel with crossrelease, the buggy kernel with crossrelease=off (stock
# lockdep), the fixed kernel with crossrelease.
#   bugs.sh [all|kernels|initramfs|run|table] [case...]   (default: all)
set -euo pipefail
. "$(dirname "$0")/common.sh"
STEP=${1:-all}; shift $(( $# > 0 ? 1 : 0 ))
BD=$BUILD/bugs
LOGS=$BUILD/logs
PKGS=(f2fs-tools ntfs-3g udftools attr)
mapfile -t ALL < <(cd "$ROOT/bugs" && for c in */; do
	c=${c%/}; bug_for_base "$c" && echo "$c"; done)
if [ $# -gt 0 ]; then CASES=("$@"); else CASES=("${ALL[@]}"); fi
for c in "${CASES[@]}"; do bug_for_base "$c" || die "case $c is not for BASE=$BASE (its info's BASES)"; done
# the bug patches of this base's cases, all of them whatever the selection
BUGP=()
for c in "${ALL[@]}"; do [ ! -f "$ROOT/bugs/$c/bug.patch" ] || BUGP+=("$ROOT/bugs/$c/bug.patch"); done
mkdir -p "$BD" "$LOGS"
xr_lib		# chain_re: the headline of a lockdep report with a chain

deps() {
	local missing=() p
	for p in "${PKGS[@]}"; do
		[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] && { say "bugs: packages present (${PKGS[*]})"; return; }
	[ "$(id -u)" = 0 ] && SUDO="" || SUDO=sudo
	say "bugs: installing ${missing[*]}"
	$SUDO apt-get update -q
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# The buggy tree: a clone of build/linux (the series) with every bug.patch
buggy_tree() {
	local stamp
	stamp=$( { git -C "$TREE" rev-parse HEAD; cat "${BUGP[@]}"; } | sha256sum | cut -d' ' -f1)
	if [ "$(cat "$BD/linux.stamp" 2>/dev/null)" = "$stamp" ]; then
		say "bugs: buggy tree up to date ($BD/linux)"; return
	fi
	say "bugs: buggy tree: clone of $TREE plus ${#BUGP[@]} bug patches"
	rm -rf "$BD/linux" "$BD/linux.stamp"
	git clone -q --shared "$TREE" "$BD/linux"
	git -C "$BD/linux" "${GIT_ID[@]}" am -q "${BUGP[@]}"
	echo "$stamp" > "$BD/linux.stamp"
}

kernels() {
	bash "$ROOT/scripts/build.sh" xr
	buggy_tree
	XR_TREE=$BD/linux XR_OUTROOT=$BD bash "$ROOT/scripts/build.sh" xr
}

# The cases' guest files, with their programs built, in build/bugs/guest
initramfs() {
	local c f bins=""
	rm -rf "$BD/guest"
	for c in "${CASES[@]}"; do
		mkdir -p "$BD/guest/$c"
		cp "$ROOT/bugs/$c/trigger.sh" "$ROOT/bugs/$c/info" "$BD/guest/$c/"
		for f in "$ROOT/bugs/$c"/*.c; do
			[ -e "$f" ] || continue
			say "bugs: gcc -static $c/$(basename "$f")"
			gcc -static -O2 -Wall -o "$BD/guest/$c/$(basename "$f" .c)" "$f"
		done
		bins+=" $(. "$ROOT/bugs/$c/info"; echo "${BINS:-}")"
	done
	XR_EXTRA_DIR=$BD/guest XR_EXTRA_BINS="$bins" bash "$ROOT/scripts/initramfs.sh" xr
	XR_TREE=$BD/linux XR_OUTROOT=$BD XR_EXTRA_DIR=$BD/guest XR_EXTRA_BINS="$bins" \
		bash "$ROOT/scripts/initramfs.sh" xr
}

# info CASE FIELD: a field of the case's info file
info() { (. "$ROOT/bugs/$1/info"; eval "echo \"\${$2:-}\"") ; }

# runnable CASE: the kernel has what the case NEEDS
runnable() {
	local sym
	for sym in $(info "$1" NEEDS); do
		grep -q "^$sym=y" "$OUTROOT/out-xr/.config" || return 1
	done
}

# boot CASE RUN: RUN is buggy-xr, buggy-stock or fixed-xr
boot() {
	local c=$1 run=$2 args env=()
	args=$(. "$ROOT/bugs/$c/info"; echo "${ARGS:-}")
	case $run in
	buggy-*) env=(XR_TREE="$BD/linux" XR_OUTROOT="$BD") ;;
	esac
	[ "$run" = buggy-stock ] && args+=" crossrelease=off"
	say "bugs: $c: boot $run"
	env "${env[@]}" XR_TIMEOUT=600 XR_LOG_NAME="bugs-$c-$run" \
		bash "$ROOT/scripts/boot.sh" -q xr "/xr/extra/$c/trigger.sh" \
		kunit.enable=0 $args || warn "bugs: $c $run did not end cleanly"
}

run() {
	local c r
	for c in "${CASES[@]}"; do
		if ! runnable "$c"; then
			say "bugs: $c: skipped, the kernel lacks $(info "$c" NEEDS)"; continue
		fi
		for r in buggy-xr buggy-stock fixed-xr; do boot "$c" "$r"; done
	done
}

# reports LOG: the lockdep reports in a boot log, each as one line of the
# classes its chain names ("#N (class)" lines and the two lock lines)
reports() {
	awk -v re="$chain_re" '
		$0 ~ re { if (r != "") print r; r = "report:"; n = 0; next }
		r != "" && /-> #[0-9]+ \(/ { sub(/.*-> #[0-9]+ /, ""); sub(/\{.*/, ""); r = r " " $0 }
		r != "" && / is (trying to acquire lock|releasing crosslock)|this context acquired lock:/ { want = 1; next }
		want { sub(/^\[ *[0-9.]+\] */, ""); sub(/\{.*/, ""); sub(/, at:.*/, ""); r = r " [" $0 "]"; want = 0 }
		r != "" && ++n > 120 { print r; r = "" }
		END { if (r != "") print r }' "$1"
}

# matches LOG EXPECT: does a report name every pattern of EXPECT?
matches() {
	local line p ok
	while read -r line; do
		ok=1
		IFS='|' read -r -a pats <<<"$2"
		for p in "${pats[@]}"; do grep -qE -- "$p" <<<"$line" || ok=0; done
		[ $ok = 1 ] && return 0
	done < <(reports "$1")
	return 1
}

table() {
	local c log n=0 xr=0 stock=0 only=0 nfixed=0 a b f title subsys kinds fixed expect still
	{
	echo "| case | subsystem | kinds | fixed in | stock lockdep | crossrelease | fixed tree |"
	echo "|---|---|---|---|---|---|---|"
	for c in "${CASES[@]}"; do
		eval "$(. "$ROOT/bugs/$c/info"; printf 'title=%q subsys=%q kinds=%q fixed=%q expect=%q still=%q' \
			"$TITLE" "$SUBSYS" "$KINDS" "$FIXED" "$EXPECT" "${STILL:-no}")"
		if ! runnable "$c"; then
			echo "| $c: $title | $subsys | $kinds | $fixed | not run: the kernel lacks $(info "$c" NEEDS) | | |"
			continue
		fi
		n=$((n + 1))
		log=$LOGS/bugs-$c-buggy-xr.log
		a=missed; [ -f "$log" ] && matches "$log" "$expect" && { a=reported; xr=$((xr + 1)); }
		log=$LOGS/bugs-$c-buggy-stock.log
		b=silent; [ -f "$log" ] && [ -n "$(reports "$log")" ] && { b=reported; stock=$((stock + 1)); }
		[ $a = reported ] && [ $b = silent ] && only=$((only + 1))
		log=$LOGS/bugs-$c-fixed-xr.log
		f=0; [ -f "$log" ] && f=$(reports "$log" | wc -l)
		nfixed=$((nfixed + f))
		[ "$still" = yes ] && f="$f (the bug is still there)"
		echo "| $c: $title | $subsys | $kinds | $fixed | $b | $a | $f |"
	done
	echo
	for c in "${CASES[@]}"; do
		runnable "$c" || continue
		echo "$c, buggy tree, crossrelease:"
		[ ! -f "$LOGS/bugs-$c-buggy-xr.log" ] || reports "$LOGS/bugs-$c-buggy-xr.log" | sed 's/^/    /'
		[ -z "$(info "$c" NOTE)" ] || echo "    missed: $(info "$c" NOTE)"
	done
	} > "$BD/table.md"
	cat "$BD/table.md"
	echo "bugs: $n cases, crossrelease $xr, stock lockdep $stock, crossrelease only $only, fixed-tree reports $nfixed"
}

t0=$SECONDS
case $STEP in
all)       deps; kernels; initramfs; run; table ;;
kernels)   kernels ;;
initramfs) initramfs ;;
run)       run; table ;;
table)     table ;;
*)         die "unknown step '$STEP' (all|kernels|initramfs|run|table)" ;;
esac
say "bugs: $STEP took $(( (SECONDS - t0) / 60 ))m$(( (SECONDS - t0) % 60 ))s"
