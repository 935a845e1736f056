#!/usr/bin/env python3
"""Turn the raw logs of scripts/bench.sh into one Markdown table of medians.

Reads build/bench/raw/<label>-<round>.log (labels plain, xr-off, xr-on and
icount-*), each the console log of one boot: lockdep's boot banner and the
KTAP document of guest/bench.sh, whose figures (and the host's, host_ms
and host_load, added by scripts/runs.sh) scripts/ktap.py reads; prints the
table on stdout.  Per-entry sizes of lockdep's tables come from the
vmlinux symbol sizes (array size / capacity).
"""
import argparse
import glob
import os
import re
import statistics
import subprocess
import sys

import ktap

LABELS = ["plain", "xr-off", "xr-on"]
HEAD = {"plain": "plain", "xr-off": "xr off", "xr-on": "xr on"}
# lockdep_stats line -> vmlinux array holding its entries
LOCKDEP_TABLES = [
    ("lock-classes", "lock_classes"),
    ("direct dependencies", "list_entries"),
    ("dependency chains", "lock_chains"),
    ("dependency chain hlocks used", "chain_hlocks"),
    ("stack-trace entries", "stack_trace"),
]
XR_TABLES = ["xr_stacks", "xr_deps", "xr_chains", "xr_last_ip"]


def number(v):
    try:
        return float(v)
    except ValueError:
        return v


def parse_log(path):
    """Return {key: value} of one boot."""
    d = {}
    with open(path, errors="replace") as f:
        text = f.read()
    for key, pat in (("ld_static_kb", r"memory used by lock dependency info: (\d+) kB"),
                     ("ld_stack_kb", r"memory used for stack traces: (\d+) kB")):
        found = re.findall(pat, text)
        if found:
            d[key] = int(found[-1])
    for key, value in ktap.parse(text).figures.items():
        v, attrs = ktap.split(value)
        if key.startswith("lockdep."):      # a /proc/lockdep_stats line
            if v.isdigit():
                d["ld:" + key[8:]] = int(v)
                if attrs.get("max", "").isdigit():
                    d["ldmax:" + key[8:]] = int(attrs["max"])
            continue
        d[key] = number(v)
        if "min" in attrs:                  # a microbenchmark: batch minimum
            d[key + ".best"] = float(attrs["min"])
        elif "chunks" in attrs or "chunks_us" in attrs:  # a workload: chunk minimum x chunks
            us = "chunks_us" in attrs
            ch = [int(x) for x in attrs["chunks_us" if us else "chunks"].split(",") if x]
            if ch:
                d[key + ".best"] = min(ch) * len(ch) / (1000 if us else 1)
    if "host_ms" in d and "guest_ms" in d:
        d["boot_host_ms"] = d["host_ms"] - d["guest_ms"]
    return d


def symsizes(vmlinux):
    sizes = {}
    if not vmlinux or not os.path.exists(vmlinux):
        return sizes
    out = subprocess.run(["nm", "-S", vmlinux], capture_output=True, text=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) == 4:
            sizes[p[3]] = int(p[1], 16)
    return sizes


def best(runs, label, key):
    """min over boots of the per-boot best (batch or chunk minimum)"""
    vals = [r.get(key + ".best", r.get(key)) for r in runs.get(label, [])]
    vals = [v for v in vals if isinstance(v, (int, float))]
    return min(vals) if vals else None


def med(runs, label, key):
    vals = [r[key] for r in runs.get(label, []) if isinstance(r.get(key), (int, float))]
    return statistics.median(vals) if vals else None


def fmt(v, nd=1):
    if v is None:
        return "n/a"
    if abs(v) >= 1000 or float(v).is_integer():
        return f"{v:,.0f}"
    return f"{v:.{nd}f}"


def ratio(a, b):
    return a / b if a is not None and b else None


def fr(x):
    return "n/a" if x is None else f"{x:.3f}"


def verdict(x, limit):
    if x is None or limit is None:
        return ""
    miss = 100 * (x / limit - 1)
    # two decimals under 1 %, so that a miss by a hair does not read 0.0 %
    return f"<= {limit:.2f}: " + ("met" if x <= limit else f"**MISSED by {miss:.{2 if miss < 1 else 1}f}%**")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rawdir")
    ap.add_argument("--rounds", type=int, default=0)
    ap.add_argument("--vmlinux", action="append", default=[])
    a = ap.parse_args()

    runs = {}
    for path in sorted(glob.glob(os.path.join(a.rawdir, "*.log"))):
        label = re.sub(r"-\d+\.log$", "", os.path.basename(path))
        runs.setdefault(label, []).append(parse_log(path))
    if not all(runs.get(lb) for lb in LABELS):
        sys.exit("bench-table: missing logs for some of " + ", ".join(LABELS))
    vml = dict(v.split("=", 1) for v in a.vmlinux)
    syms = {k: symsizes(p) for k, p in vml.items()}
    n = min(len(runs[lb]) for lb in LABELS)
    sample = runs["xr-on"][0]

    print(f"Medians over {n} boots per kernel (interleaved: plain, xr off, xr on); "
          f"microbenchmarks are themselves medians of {int(sample.get('reps', 5))} "
          "timed batches.  QEMU TCG: absolute numbers are indicative, ratios count.")
    loads = [r.get("host_load") for lb in LABELS for r in runs[lb]]
    loads = [x for x in loads if isinstance(x, float)]
    if loads:
        print(f"Host load average at the start of the boots: {min(loads):.2f} to {max(loads):.2f} "
              "(2 host CPUs; other QEMU guests add noise).")
    print()
    print("| metric | unit | plain | xr off | xr on | on/plain | off/plain | on/off | "
          "on/plain, best-of | target (on/plain) | target (off/plain) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|")

    def row(name, unit, key, limit=None, nd=1, off_limit=None, labels=LABELS):
        p, off, on = (med(runs, lb, key) for lb in labels)
        rp = ratio(on, p)
        rb = ratio(best(runs, labels[2], key), best(runs, labels[0], key))
        print(f"| {name} | {unit} | {fmt(p, nd)} | {fmt(off, nd)} | {fmt(on, nd)} | "
              f"{fr(rp)} | {fr(ratio(off, p))} | {fr(ratio(on, off))} | {fr(rb)} | "
              f"{verdict(rp, limit)} | {verdict(ratio(off, p), off_limit)} |")

    def lock_rows(unit, labels=LABELS):
        for d in (1, 4, 8):
            row(f"mutex lock/unlock, depth {d}", unit, f"mutex_d{d}", 1.05,
                off_limit=1.02, labels=labels)
        for d in (1, 4, 8):
            row(f"spinlock lock/unlock, depth {d}", unit, f"spin_d{d}", 1.05,
                off_limit=1.02, labels=labels)

    lock_rows("ns/pair")
    row("folio_lock/folio_unlock", "ns/pair", "folio_lock")
    fm = [ratio(med(runs, lb, "folio_lock"), med(runs, lb, "mutex_d1")) for lb in LABELS]
    fmb = ratio(best(runs, "xr-on", "folio_lock"), best(runs, "xr-on", "mutex_d1"))
    print(f"| folio pair / mutex pair (depth 1), same kernel | ratio | {fr(fm[0])} | {fr(fm[1])} | "
          f"{fr(fm[2])} | | | | {fr(fmb)} (xr on) | xr on {verdict(fm[2], 1.50)} | |")
    row("completion ping-pong, 2 kthreads", "ns/round trip", "completion_pingpong")
    row("boot to shell (guest /proc/uptime)", "ms", "boot_ms", 1.03)
    row("boot to shell (host wall, qemu start)", "ms", "boot_host_ms")
    row("workload: fork+exec loop", "ms", "forkexec_ms", 1.10)
    row("workload: tmpfs create/write/read/delete", "ms", "files_ms", 1.10)
    row("file-system throughput: ext4 on loop, xr_filework x 5", "ms", "fs_ms", 1.10)
    row("task_struct object size", "bytes", "task_struct_bytes", nd=0)

    icl = ["icount-" + lb for lb in LABELS]
    if all(runs.get(lb) for lb in icl):
        print()
        print("Instructions executed, the same three kernels booted once more under "
              "`qemu -icount shift=0` on one vCPU: the guest clock advances 1 ns per "
              "instruction, so these count instructions per operation, whatever the "
              "host load and however TCG handles the code layout (deterministic: "
              "the 15 batches of a boot agree within 0.1 %).  Workloads in "
              "virtual ms: instructions / 10^6, plus idle time skipped to the next timer.")
        print()
        print("| metric | unit | plain | xr off | xr on | on/plain | off/plain | on/off | "
              "on/plain, best-of | target (on/plain) | target (off/plain) |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|")
        lock_rows("instructions/pair", icl)
        row("folio_lock/folio_unlock", "instructions/pair", "folio_lock", labels=icl)
        row("completion ping-pong, 2 kthreads", "instructions/round trip",
            "completion_pingpong", labels=icl)
        row("workload: tmpfs create/write/read/delete", "virtual ms", "files_ms", 1.10, labels=icl)
        row("file-system throughput: ext4 on loop, xr_filework x 5", "virtual ms", "fs_ms",
            1.10, labels=icl)

    print()
    print("Mutex lock/unlock (depth 1) while N kthreads are blocked in "
          "wait_for_completion() on completions of their own:")
    print()
    print("| N waiting | crosslocks in flight (xr on) | plain | xr off | xr on | on/plain | "
          "on(N)/on(0) | on(N)/on(0), best-of | target on(N)/on(0) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    on0 = med(runs, "xr-on", "inflight_0")
    for k in (0, 1, 10, 100, 1000):
        key = f"inflight_{k}"
        p, off, on = (med(runs, lb, key) for lb in LABELS)
        seen = med(runs, "xr-on", f"inflight_seen_{k}")
        flat = ratio(on, on0)
        fb = ratio(best(runs, "xr-on", key), best(runs, "xr-on", "inflight_0"))
        print(f"| {k} | {fmt(seen)} | {fmt(p)} | {fmt(off)} | {fmt(on)} | {fr(ratio(on, p))} | "
              f"{fr(flat)} | {fr(fb)} | {verdict(flat, 1.05) if k else ''} |")

    # memory
    print()
    print("Memory (xr = the crossrelease kernel; lockdep's tables after the workload, "
          "before the microbenchmarks):")
    print()
    print("| memory | plain | xr off | xr on | on - plain |")
    print("|---|---:|---:|---:|---:|")
    tp, toff, ton = (med(runs, lb, "task_struct_bytes") for lb in LABELS)
    dt = None if ton is None or tp is None else ton - tp
    tgt = "" if dt is None else (" (target <= 4096: met)" if dt <= 4096 else " (target <= 4096: **MISSED**)")
    print(f"| task_struct object size, bytes | {fmt(tp, 0)} | {fmt(toff, 0)} | {fmt(ton, 0)} | "
          f"{fmt(dt, 0)}{tgt} |")

    def used_bytes(label, symtab):
        total = 0
        for stat, sym in LOCKDEP_TABLES:
            u, mx = med(runs, label, "ld:" + stat), med(runs, label, "ldmax:" + stat)
            sz = symtab.get(sym)
            if u is None or not mx or not sz:
                return None
            total += u * sz / mx
        return total

    sp, sx = syms.get("plain", {}), syms.get("xr", {})
    for stat, sym in LOCKDEP_TABLES:
        vals = [med(runs, lb, "ld:" + stat) for lb in LABELS]
        d = None if vals[2] is None or vals[0] is None else vals[2] - vals[0]
        print(f"| lockdep {stat} | {fmt(vals[0], 0)} | {fmt(vals[1], 0)} | {fmt(vals[2], 0)} | {fmt(d, 0)} |")
    ub = [used_bytes("plain", sp), used_bytes("xr-off", sx), used_bytes("xr-on", sx)]
    d = None if ub[2] is None or ub[0] is None else ub[2] - ub[0]
    kib = [None if x is None else x / 1024 for x in ub]
    print(f"| lockdep tables in use (entries x entry size), KiB | {fmt(kib[0])} | {fmt(kib[1])} | "
          f"{fmt(kib[2])} | {fmt(None if d is None else d / 1024)} |")
    st = [med(runs, lb, "ld_static_kb") for lb in LABELS]
    sk = [med(runs, lb, "ld_stack_kb") for lb in LABELS]
    stot = [None if x is None or y is None else x + y for x, y in zip(st, sk)]
    d = None if stot[2] is None or stot[0] is None else stot[2] - stot[0]
    print(f"| lockdep static tables (boot banner), KiB | {fmt(stot[0])} | {fmt(stot[1])} | "
          f"{fmt(stot[2])} | {fmt(d)} |")
    xr = sum(sx.get(s, 0) for s in XR_TABLES)
    print(f"| crossrelease static tables ({', '.join(XR_TABLES)}), KiB | 0 | {fmt(xr / 1024)} | "
          f"{fmt(xr / 1024)} | {fmt(xr / 1024)} |")


if __name__ == "__main__":
    main()
