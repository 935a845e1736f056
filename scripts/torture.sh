#!/usr/bin/env bash
# make torture: crossrelease under the kernel's own torture and selftest
# machinery, sanitizers, full tables and lifecycle faults.  Not in CI
# (about 90 minutes cold); prints one table row per item and exits
# non-zero if any row fails.
#   1. the "torture" kernel (xr + configs/torture.config: KASAN, debug
#      objects, DEBUG_LOCKING_API_SELFTESTS, the torture modules), booted
#      with crossrelease on: lockdep's selftests, test-ww_mutex, the
#      crossrelease KUnit suites (misuse table included) and kselftests
#      (lifecycle faults at 5x), 10,000 threads, locktorture (4 types)
#      and rcutorture with a folio/completion workload running;
#   2. the same kernel with crossrelease=off: lockdep's selftests must
#      give the same summary;
#   3. the "tables" kernel four times, each with one of lockdep's tables
#      or crossrelease's caches small, running a workload;
#   4. with TORTURE_KCSAN=1 (or the step "kcsan"), the "kcsan" kernel
#      running the KUnit suites and kselftests: KCSAN's data-race reports
#      are listed (a figure, not a failure: most are upstream's).
#   torture.sh [all|kernel|run|table|kcsan|summary]      (default: all)
# Env: TORTURE_MIN (minutes per locktorture type, default 2),
#      TORTURE_TABLES (default "deps chains stacks caches"),
#      TORTURE_KCSAN (1: add step 4 to "all").
set -euo pipefail
. "$(dirname "$0")/common.sh"
TD=$BUILD/torture
LOGS=$BUILD/logs
MIN=${TORTURE_MIN:-2}
TABLES=${TORTURE_TABLES:-deps chains stacks caches}
STEP=${1:-all}
mkdir -p "$TD" "$LOGS"

declare -A TABLE_CONFIG=(
	[deps]="CONFIG_LOCKDEP_BITS=10"
	[chains]="CONFIG_LOCKDEP_CHAINS_BITS=10"
	[stacks]="CONFIG_LOCKDEP_STACK_TRACE_BITS=10"
	[caches]="CONFIG_LOCKDEP_CROSSRELEASE_CACHE_BITS=6"
)

timed() { # name command...: run, record seconds and exit status
	local name=$1 t0=$SECONDS rc=0; shift
	"$@" || rc=$?
	echo "$((SECONDS - t0)) $rc" > "$TD/$name.time"
	return 0
}

kernel() {
	bash "$ROOT/scripts/build.sh" torture
	bash "$ROOT/scripts/initramfs.sh" torture
}

run() {
	say "torture: boot 'on' ($MIN min per locktorture type)"
	rm -f "$TD"/*.time
	XR_MEM=3G XR_TIMEOUT=5400 XR_LOG_NAME=torture-on timed on \
		bash "$ROOT/scripts/boot.sh" torture /xr/torture.sh "xr.args=all,$MIN" \
		"kunit.filter_glob=crossrelease*" log_buf_len=32M hung_task_timeout_secs=600
	say "torture: boot 'off' (crossrelease=off, lockdep's selftests)"
	XR_MEM=2G XR_TIMEOUT=1800 XR_LOG_NAME=torture-off timed off \
		bash "$ROOT/scripts/boot.sh" torture /xr/torture.sh xr.args=selftests \
		crossrelease=off kunit.enable=0 log_buf_len=32M
}

# one small table per boot; the kernel is rebuilt incrementally
table() {
	local t
	for t in $TABLES; do
		[ -n "${TABLE_CONFIG[$t]:-}" ] || die "unknown table '$t'"
		say "torture: tables kernel with ${TABLE_CONFIG[$t]}"
		echo "${TABLE_CONFIG[$t]}" > "$BUILD/tables.config"
		bash "$ROOT/scripts/build.sh" tables
		bash "$ROOT/scripts/initramfs.sh" tables
		XR_MEM=2G XR_TIMEOUT=1800 XR_LOG_NAME=torture-table-$t timed "table-$t" \
			bash "$ROOT/scripts/boot.sh" tables /xr/torture.sh xr.args=tables kunit.enable=0
	done
}

# KCSAN: the KUnit suites and kselftests; data races listed by function
kcsan() {
	bash "$ROOT/scripts/build.sh" kcsan
	bash "$ROOT/scripts/initramfs.sh" kcsan
	XR_MEM=2G XR_TIMEOUT=3600 XR_LOG_NAME=torture-kcsan timed kcsan \
		bash "$ROOT/scripts/boot.sh" kcsan test "kunit.filter_glob=crossrelease*" log_buf_len=32M
	grep -a -A1 'BUG: KCSAN: data-race in' "$LOGS/torture-kcsan.log" |
		sed -n 's/^.*BUG: KCSAN: data-race in //p' | sort | uniq -c | sort -rn > "$TD/kcsan-races.txt" || true
	say "torture: KCSAN: $(wc -l < "$TD/kcsan-races.txt") distinct data races, in $TD/kcsan-races.txt"
}

rows() { # log [prefix]
	[ -f "$1" ] || { echo "| ${2:-}(no log) | | FAIL |"; return; }
	grep -a '^TORTURE-ROW|' "$1" | sed -e 's/\r//' | awk -F'|' -v p="${2:-}" '{ printf "| %s%s | %s | %s |\n", p, $2, $3, $4 }'
}

summary() {
	local on=$LOGS/torture-on.log off=$LOGS/torture-off.log s_on s_off k t rc st
	{
	echo "| item | figures | result |"
	echo "|---|---|---|"
	rows "$on"
	if [ -f "$on" ]; then
		k=$(python3 "$ROOT/scripts/ktap.py" --marker=XR-END "$on" 2>&1 | tail -1) && st=ok || st=FAIL
		echo "| KUnit (crossrelease*, misuse table) + kselftests, KASAN + debug objects | $k | $st |"
	fi
	s_on=$(grep -a '^TORTURE-ROW|lockdep selftests' "$on" 2>/dev/null | cut -d'|' -f3 | sed 's/; crossrelease.*//')
	s_off=$(grep -a '^TORTURE-ROW|lockdep selftests' "$off" 2>/dev/null | cut -d'|' -f3 | sed 's/; crossrelease.*//')
	[ -n "$s_on" ] && [ "$s_on" = "$s_off" ] && st=ok || st=FAIL
	echo "| lockdep selftests, crossrelease on vs off | on: ${s_on:-?}; off: ${s_off:-?} | $st |"
	for t in $TABLES; do
		rows "$LOGS/torture-table-$t.log" "${TABLE_CONFIG[$t]}: "
	done
	if [ -f "$TD/kcsan.time" ]; then
		k=$(python3 "$ROOT/scripts/ktap.py" --marker=XR-END "$LOGS/torture-kcsan.log" 2>&1 | tail -1) && st=ok || st=FAIL
		echo "| KCSAN kernel: KUnit + kselftests | $k; $(wc -l < "$TD/kcsan-races.txt") distinct data races reported ($(grep -c 'crossrelease\|xr_\|pagelock' "$TD/kcsan-races.txt" || true) in crossrelease code), see build/torture/kcsan-races.txt | $st |"
	fi
	for t in on off kcsan $(for x in $TABLES; do echo "table-$x"; done); do
		[ -f "$TD/$t.time" ] || continue
		read -r s rc < "$TD/$t.time"
		echo "| boot $t | $((s / 60)) min $((s % 60)) s, exit $rc | $([ "$rc" = 0 ] && echo ok || echo FAIL) |"
	done
	} > "$TD/table.md"
	cat "$TD/table.md"
	if grep -q '| FAIL |' "$TD/table.md"; then die "torture: some rows failed (logs in $LOGS/torture-*.log)"; fi
	say "torture: PASS, table in $TD/table.md"
}

case $STEP in
all)    t0=$SECONDS; kernel; run; table; [ "${TORTURE_KCSAN:-0}" = 1 ] && kcsan; summary
	say "torture: took $(( (SECONDS - t0) / 60 )) min" ;;
kernel|run|table|kcsan|summary) $STEP ;;
*)      die "unknown step '$STEP' (all|kernel|run|table|kcsan|summary)" ;;
esac
