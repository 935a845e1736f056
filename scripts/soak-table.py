#!/usr/bin/env python3
"""The table of make soak, from the raw logs of scripts/soak.sh.

usage: soak-table.py --reports-re RE --hung-re RE --oom-re RE
                     [--reports-txt FILE] RAWDIR

Reads RAWDIR/on.log and RAWDIR/off.log: the console log of a boot (the
KTAP document of guest/soak.sh, whose last result carries the figures
debug_locks, commits, deps_added, misuse) and the host's figures host_ms
and boot_rc (scripts/runs.sh).  Reports, hung tasks/stalls and OOM kills
are counted in the kernel's console lines (the regular expressions come
from guest/lib.sh).  Prints one row per run; exit status 1 (and a warning
on stderr) if the crossrelease-on run did not reach XR-END, had a report,
ended with debug_locks != 1 or made no commit.
"""
import argparse
import os
import re
import sys

import ktap


def row(rawdir, n, a):
    """One table line, and the figures the verdict needs."""
    path = os.path.join(rawdir, n + '.log')
    if not os.path.exists(path):
        return f'| {n:<4} | not run |', {'end': 'no'}
    text = open(path, errors='replace').read()
    log = ktap.parse(text)
    last = log.results[-1].figures if log.results else {}
    count = {k: sum(1 for line in text.split('\n') if re.search(getattr(a, k + '_re'), line))
             for k in ('reports', 'hung', 'oom')}
    secs = int(log.figures.get('host_ms', '0')) / 1000
    rc = log.figures.get('boot_rc', '?')
    f = {'reports': count['reports'], 'dl': last.get('debug_locks', ''),
         'commits': last.get('commits', ''),
         'end': 'yes' if 'XR-END' in text else f'NO (rc={rc})'}
    return (f"| {n:<4} | {secs / 60:5.1f} | {f['reports']:>7} | {f['dl'] or '?':>11} | "
            f"{f['commits'] or '?':>10} | {last.get('deps_added', ''):>10} | "
            f"{last.get('misuse', ''):>6} | {count['hung']:>10} | {count['oom']:>9} | "
            f"{f['end']} |"), f


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('rawdir')
    ap.add_argument('--reports-re', required=True)
    ap.add_argument('--hung-re', required=True)
    ap.add_argument('--oom-re', required=True)
    ap.add_argument('--reports-txt', default='build/soak/reports.txt')
    a = ap.parse_args()

    print('| run  |   min | reports | debug_locks |    commits | deps added | misuse | '
          'hung/stall | OOM kills | XR-END |')
    print('|------|------:|--------:|------------:|-----------:|-----------:|-------:|'
          '-----------:|----------:|--------|')
    line, on = row(a.rawdir, 'on', a)
    print(line)
    print(row(a.rawdir, 'off', a)[0])

    fails = []
    if on['end'] != 'yes':
        fails.append('soak: the crossrelease-on run did not reach XR-END')
    if on.get('reports', '?') != 0:
        fails.append(f"soak: {on.get('reports', '?')} report(s) with crossrelease on "
                     f'(see {a.reports_txt})')
    if on.get('dl') != '1':
        fails.append(f"soak: debug_locks is '{on.get('dl') or '?'}' after the crossrelease-on run")
    if not on.get('commits', '').isdigit() or int(on['commits']) <= 0:
        fails.append('soak: no crosslock commit in the crossrelease-on run')
    for msg in fails:
        print(f'!! WARNING: {msg}', file=sys.stderr)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
