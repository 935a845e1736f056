# shellcheck shell=bash
# Sourced by scripts/soak.sh, torture.sh and bench.sh, after common.sh: the
# one driver for "build a variant, boot it N times, tabulate".  The caller
# sets RUNS (its output directory, e.g. build/soak).  Each boot's console
# log is kept as $RUNS/raw/<name>.log (boot.sh's own copy is
# build/logs/<runs>-<name>.log), followed by the host's figures in the
# guest's form (guest/lib.sh), which scripts/ktap.py reads with the rest:
#   # host_ms: <wall time of the boot>
#   # host_load: <1-minute load average before it>
#   # boot_rc: <boot.sh's exit status: 0 if the guest reached XR-END>
#
#   runs_kernel V                 build variant V (scripts/build.sh) and its
#                                 initramfs (XR_EXTRA_BINS: host binaries to add)
#   runs_boot NAME V RUN [args]   boot V with xr.run=RUN and kernel args; boot.sh's
#                                 environment passes through (XR_MEM, XR_TIMEOUT,
#                                 XR_QEMU_ARGS); RUNS_SHOW=ERE: print only the
#                                 guest's output lines that match (boot.sh -q)
#   runs_table TABULATOR [args]   python3 scripts/TABULATOR [args] $RUNS/raw:
#                                 $RUNS/table.md, printed; the tabulator's status
RUNS_NAME=$(basename "$RUNS")

runs_kernel() {
	bash "$ROOT/scripts/build.sh" "$1"
	bash "$ROOT/scripts/initramfs.sh" "$1"
}

runs_boot() {
	local name=$1 v=$2 run=$3 load t0 rc=0
	local log=$BUILD/logs/$RUNS_NAME-$1.log raw=$RUNS/raw/$1.log
	shift 3
	mkdir -p "$RUNS/raw"
	rm -f "$log" "$raw"
	load=$(cut -d' ' -f1 /proc/loadavg)
	t0=$(date +%s%N)
	if [ -n "${RUNS_SHOW:-}" ]; then
		XR_LOG_NAME=$RUNS_NAME-$name bash "$ROOT/scripts/boot.sh" -q "$v" "$run" "$@" |
			{ grep -E "$RUNS_SHOW" || true; } || rc=$?
	else
		XR_LOG_NAME=$RUNS_NAME-$name bash "$ROOT/scripts/boot.sh" "$v" "$run" "$@" || rc=$?
	fi
	[ -f "$log" ] || { warn "$RUNS_NAME: boot $name left no log"; return 1; }
	{ cat "$log"
	  echo "# host_ms: $(( ($(date +%s%N) - t0) / 1000000 ))"
	  echo "# host_load: $load"
	  echo "# boot_rc: $rc"; } > "$raw"
	return $rc
}

runs_table() {
	local tab=$1 rc=0
	shift
	python3 "$ROOT/scripts/$tab" "$@" "$RUNS/raw" > "$RUNS/table.md" 2> "$RUNS/table.err" || rc=$?
	cat "$RUNS/table.md"
	cat "$RUNS/table.err" >&2
	rm -f "$RUNS/table.err"
	return $rc
}
