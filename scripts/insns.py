#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Per-function instruction counts of two boots, from scripts/insns-plugin.c.

  insns.py PLAIN.out PLAIN_VMLINUX XR.out XR_VMLINUX [--top N]

Each translation block's count goes to the function whose symbol starts at
or below its address; a function's calls are the executions of the block
at its first address.  Prints a Markdown table of the functions whose
count grew most from the first boot to the second.
"""
import argparse
import bisect
import subprocess


def symbols(vmlinux):
    """Sorted start addresses and names of the text symbols of vmlinux."""
    out = subprocess.run(['nm', '-n', vmlinux], capture_output=True,
                         text=True, check=True).stdout
    addrs, names = [], []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in 'tTwW':
            addrs.append(int(f[0], 16))
            names.append(f[2])
    return addrs, names


def per_function(counts, vmlinux):
    """{function: [instructions, calls]} and the total instructions."""
    addrs, names = symbols(vmlinux)
    starts = set(addrs)
    funcs, total = {}, 0
    for line in open(counts):
        vaddr, insns, execs = (int(x, 16) if i == 0 else int(x)
                               for i, x in enumerate(line.split()))
        i = bisect.bisect_right(addrs, vaddr) - 1
        f = funcs.setdefault(names[i] if i >= 0 else '?', [0, 0])
        f[0] += insns
        if vaddr in starts:
            f[1] += execs
        total += insns
    return funcs, total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('plain_out')
    ap.add_argument('plain_vmlinux')
    ap.add_argument('xr_out')
    ap.add_argument('xr_vmlinux')
    ap.add_argument('--top', type=int, default=30)
    a = ap.parse_args()
    p, tp = per_function(a.plain_out, a.plain_vmlinux)
    x, tx = per_function(a.xr_out, a.xr_vmlinux)
    extra = tx - tp
    print(f'Instructions executed: plain {tp / 1e6:,.1f} M, xr {tx / 1e6:,.1f} M, '
          f'ratio {tx / tp:.3f}; {extra / 1e6:,.1f} M more.\n')
    print('| function | plain, M | xr, M | more, M | share of more | calls in xr | per call |')
    print('|---|---:|---:|---:|---:|---:|---:|')
    grow = sorted(set(p) | set(x), key=lambda k: -(x.get(k, [0])[0] - p.get(k, [0])[0]))
    for k in grow[:a.top]:
        xi, calls = x.get(k, [0, 0])
        pi = p.get(k, [0, 0])[0]
        per = f'{xi / calls:.0f}' if calls else ''
        print(f'| `{k}` | {pi / 1e6:.2f} | {xi / 1e6:.2f} | {(xi - pi) / 1e6:+.2f} | '
              f'{(xi - pi) / extra:.1%} | {calls:,} | {per} |')


if __name__ == '__main__':
    main()
