#!/usr/bin/env python3
"""The table of make torture, from the raw logs of scripts/torture.sh.

usage: torture-table.py [--table NAME=CONFIG ...] [--kcsan-races FILE] RAWDIR

Reads RAWDIR/<boot>.log (on, off, table-<NAME>, kcsan): the console log
of a boot, with the KTAP document of guest/torture.sh (one result per
item, its figures "figures" and, for the selftests, "summary"), and the
host's figures host_ms and boot_rc (scripts/runs.sh).  Prints one row per
item, then the KUnit and kselftest counts, the selftests on vs off, the
tables kernels' rows and one row per boot; exit status 1 if a row failed.
"""
import argparse
import os
import sys

import ktap


def load(rawdir, boot):
    path = os.path.join(rawdir, boot + '.log')
    if not os.path.exists(path):
        return None
    return open(path, errors='replace').read()


def items(text):
    """The guest's own results: depth 0 of the document after XR-BEGIN."""
    return [r for r in ktap.parse(text, start='XR-BEGIN').results if r.depth == 0]


def rows(text, prefix=''):
    if text is None:
        return [f'| {prefix}(no log) | | FAIL |']
    return [f"| {prefix}{r.name} | {r.figures.get('figures', '')} | "
            f"{'ok' if r.kind == 'passed' else 'FAIL'} |" for r in items(text)]


def counts(text, own=False):
    """The cases of KUnit and the kselftests, as ktap.py counts them; with
    own, not the guest's own items (depth 0 of its document: "(top level)"
    there), nor the failure of an item that nests the kselftests; and
    whether they all passed and the guest finished."""
    log = ktap.parse(text)
    passed = sum(c[0] for c in log.suites.values())
    failed = sum(c[1] for c in log.suites.values())
    if own:
        guest = ktap.parse(text, start='XR-BEGIN')
        top = guest.suites.get('(top level)', [0, 0, 0])
        passed, failed = passed - top[0], failed - top[1]
        failed -= len(log.unlisted & {r.name for r in items(text)})
    ok = failed == 0 and passed + failed > 0 and 'XR-END' in text
    return f'{passed} passed, {failed} failed', 'ok' if ok else 'FAIL'


def summary(text):
    """lockdep's selftest summary of a boot"""
    for r in items(text or ''):
        if r.name.startswith('lockdep selftests'):
            return r.figures.get('summary', '')
    return ''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('rawdir')
    ap.add_argument('--table', action='append', default=[])
    ap.add_argument('--kcsan-races', default='')
    a = ap.parse_args()
    tables = [t.split('=', 1) for t in a.table]

    out = ['| item | figures | result |', '|---|---|---|']
    on, off = load(a.rawdir, 'on'), load(a.rawdir, 'off')
    out += rows(on)
    if on is not None:
        k, st = counts(on, own=True)
        out.append(f'| KUnit (crossrelease*, misuse table) + kselftests, KASAN + debug objects | {k} | {st} |')
    s_on, s_off = summary(on), summary(off)
    st = 'ok' if s_on and s_on == s_off else 'FAIL'
    out.append(f"| lockdep selftests, crossrelease on vs off | on: {s_on or '?'}; off: {s_off or '?'} | {st} |")
    for name, config in tables:
        out += rows(load(a.rawdir, 'table-' + name), config + ': ')
    kcsan = load(a.rawdir, 'kcsan')
    if kcsan is not None:
        k, st = counts(kcsan)
        races = open(a.kcsan_races).read().splitlines() if os.path.exists(a.kcsan_races) else []
        ours = sum(1 for r in races if 'crossrelease' in r or 'xr_' in r or 'crosslock_' in r)
        out.append(f'| KCSAN kernel: KUnit + kselftests | {k}; {len(races)} distinct data races '
                   f'reported ({ours} in crossrelease code), see build/torture/kcsan-races.txt | {st} |')
    for boot in ['on', 'off', 'kcsan'] + ['table-' + name for name, _ in tables]:
        text = load(a.rawdir, boot)
        if text is None:
            continue
        fig = ktap.parse(text).figures
        s, rc = int(fig.get('host_ms', '0')) // 1000, fig.get('boot_rc', '?')
        out.append(f"| boot {boot} | {s // 60} min {s % 60} s, exit {rc} | "
                   f"{'ok' if rc == '0' else 'FAIL'} |")
    print('\n'.join(out))
    return 1 if any('| FAIL |' in line for line in out) else 0


if __name__ == '__main__':
    sys.exit(main())
