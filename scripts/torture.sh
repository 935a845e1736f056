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
# Boots and table through scripts/runs.sh: raw logs in build/torture/raw/,
# the table in build/torture/table.md (scripts/torture-table.py).
#   torture.sh [all|kernel|run|table|kcsan|summary]      (default: all)
# Env: TORTURE_MIN (minutes per locktorture type, default 2),
#      TORTURE_TABLES (default "deps chains stacks caches"),
#      TORTURE_KCSAN (1: add step 4 to "all").
set -euo pipefail
. "$(dirname "$0")/common.sh"
TD=$BUILD/torture
RUNS=$TD
. "$ROOT/scripts/runs.sh"
MIN=${TORTURE_MIN:-2}
TABLES=${TORTURE_TABLES:-deps chains stacks caches}
STEP=${1:-all}
mkdir -p "$TD"

declare -A TABLE_CONFIG=(
	[deps]="CONFIG_LOCKDEP_BITS=10"
	[chains]="CONFIG_LOCKDEP_CHAINS_BITS=10"
	[stacks]="CONFIG_LOCKDEP_STACK_TRACE_BITS=10"
	[caches]="CONFIG_LOCKDEP_CROSSRELEASE_CACHE_BITS=6"
)

kernel() {
	runs_kernel torture
}

run() {
	rm -f "$TD/raw/kcsan.log"	# "all" runs kcsan again, if asked to
	say "torture: boot 'on' ($MIN min per locktorture type)"
	XR_MEM=3G XR_TIMEOUT=5400 runs_boot on torture /xr/torture.sh "xr.args=all,$MIN" \
		"kunit.filter_glob=crossrelease*" log_buf_len=32M hung_task_timeout_secs=600 || true
	say "torture: boot 'off' (crossrelease=off, lockdep's selftests)"
	XR_MEM=2G XR_TIMEOUT=1800 runs_boot off torture /xr/torture.sh xr.args=selftests \
		crossrelease=off kunit.enable=0 log_buf_len=32M || true
}

# one small table per boot; the kernel is rebuilt incrementally
table() {
	local t
	for t in $TABLES; do
		[ -n "${TABLE_CONFIG[$t]:-}" ] || die "unknown table '$t'"
		say "torture: tables kernel with ${TABLE_CONFIG[$t]}"
		echo "${TABLE_CONFIG[$t]}" > "$BUILD/tables.config"
		runs_kernel tables
		XR_MEM=2G XR_TIMEOUT=1800 runs_boot "table-$t" tables /xr/torture.sh xr.args=tables \
			kunit.enable=0 || true
	done
}

# KCSAN: the KUnit suites and kselftests; data races listed by function
kcsan() {
	runs_kernel kcsan
	XR_MEM=2G XR_TIMEOUT=3600 runs_boot kcsan kcsan test "kunit.filter_glob=crossrelease*" \
		log_buf_len=32M || true
	grep -a -A1 'BUG: KCSAN: data-race in' "$TD/raw/kcsan.log" |
		sed -n 's/^.*BUG: KCSAN: data-race in //p' | sort | uniq -c | sort -rn > "$TD/kcsan-races.txt" || true
	say "torture: KCSAN: $(wc -l < "$TD/kcsan-races.txt") distinct data races, in $TD/kcsan-races.txt"
}

summary() {
	local t args=()
	for t in $TABLES; do args+=(--table "$t=${TABLE_CONFIG[$t]}"); done
	if runs_table torture-table.py "${args[@]}" --kcsan-races "$TD/kcsan-races.txt"; then
		say "torture: PASS, table in $TD/table.md"
	else
		die "torture: some rows failed (logs in $TD/raw/)"
	fi
}

case $STEP in
all)    t0=$SECONDS; kernel; run; table; [ "${TORTURE_KCSAN:-0}" = 1 ] && kcsan; summary
	say "torture: took $(( (SECONDS - t0) / 60 )) min" ;;
kernel|run|table|kcsan|summary) $STEP ;;
*)      die "unknown step '$STEP' (all|kernel|run|table|kcsan|summary)" ;;
esac
