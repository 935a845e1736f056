#!/usr/bin/env python3
"""The table of make soak, from the raw logs of scripts/soak.sh.

usage: soak-table.py --reports-re RE --hung-re RE --oom-re RE
                     [--reports-txt FILE] [--known FILE] RAWDIR

Reads RAWDIR/on.log and RAWDIR/off.log: the console log of a boot (the
KTAP document of guest/soak.sh, whose last result carries the figures
debug_locks, commits, deps_added, misuse) and the host's figures host_ms
and boot_rc (scripts/runs.sh).  Reports, hung tasks/stalls and OOM kills
are counted in the kernel's console lines (the regular expressions come
from guest/lib.sh).  Prints one row per run; exit status 1 (and a warning
on stderr) if the crossrelease-on run did not reach XR-END, had a report,
ended with debug_locks != 1 or made no commit.  A report that names
every class of a deadlock known to be real and still in the base (--known:
lines "case<TAB>EXPECT", from the bugs/ cases with STILL=yes) is counted
apart and does not fail the soak: the soak hunts false reports.
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


def known_reports(reports_txt, known_tsv):
    """{case: count} of the "on" run's reports that match a known real bug."""
    if not known_tsv or not os.path.exists(reports_txt):
        return {}
    known = [line.rstrip('\n').split('\t', 1) for line in open(known_tsv) if '\t' in line]
    blocks = re.split(r'^==== ', open(reports_txt, errors='replace').read(), flags=re.M)
    found = {}
    for block in (b for b in blocks if b.startswith('run on,')):
        for case, expect in known:
            if all(re.search(p, block) for p in expect.split('|')):
                found[case] = found.get(case, 0) + 1
                break
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('rawdir')
    ap.add_argument('--reports-re', required=True)
    ap.add_argument('--hung-re', required=True)
    ap.add_argument('--oom-re', required=True)
    ap.add_argument('--reports-txt', default='build/soak/reports.txt')
    ap.add_argument('--known', help='TSV of known real bugs: case, EXPECT')
    a = ap.parse_args()

    print('| run  |   min | reports | debug_locks |    commits | deps added | misuse | '
          'hung/stall | OOM kills | XR-END |')
    print('|------|------:|--------:|------------:|-----------:|-----------:|-------:|'
          '-----------:|----------:|--------|')
    line, on = row(a.rawdir, 'on', a)
    print(line)
    print(row(a.rawdir, 'off', a)[0])

    known = known_reports(a.reports_txt, a.known)
    for case, n in sorted(known.items()):
        print(f'\nKnown real deadlock, still in this base, reported {n} time(s): '
              f'{case} (bugs/{case}/)')
    fails = []
    if on['end'] != 'yes':
        fails.append('soak: the crossrelease-on run did not reach XR-END')
    unknown = on.get('reports', '?')
    if unknown != '?':
        unknown -= sum(known.values())
    if unknown != 0:
        fails.append(f"soak: {unknown} report(s) with crossrelease on, not of a known "
                     f'real deadlock (see {a.reports_txt})')
    if on.get('dl') != '1':
        fails.append(f"soak: debug_locks is '{on.get('dl') or '?'}' after the crossrelease-on run")
    if not on.get('commits', '').isdigit() or int(on['commits']) <= 0:
        fails.append('soak: no crosslock commit in the crossrelease-on run')
    for msg in fails:
        print(f'!! WARNING: {msg}', file=sys.stderr)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
