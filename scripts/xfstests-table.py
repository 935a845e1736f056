#!/usr/bin/env python3
"""Tables and summary lines of make xfstests (scripts/xfstests.sh).

usage: xfstests-table.py --report-re RE --crash-re RE --merge RUNDIR VDIR
       xfstests-table.py [--triage TSV] --summary FS FSDIR

--merge reads one boot's results: RUNDIR/result.xml (xfstests' xunit
report: each test's status and seconds) and RUNDIR/console.log (the
kernel's console, cut into tests at xfstests' "run fstests T at" lines).
It writes each test's lockdep reports (from the line before each headline
matching --report-re, 60 lines) to RUNDIR/lockdep/<fs>_<n>.txt, the run's
table to RUNDIR/table.md (printed), and merges the run into VDIR/tests.tsv
(test, status, seconds, lockdep reports, crossrelease reports, other
warnings, run; a later run of a test replaces an earlier one), so that
shards run at different times make one table.  Exit status 1 if the run
left no result.xml (check did not finish).

--summary prints the line of the issue for FS from FSDIR/xr/tests.tsv and,
when present, FSDIR/plain/tests.tsv (the crossrelease=off control):
  xfstests ext4: N run, P passed, F failed (plain: F'), crossrelease
  reports R (real X, false fixed Y, untriaged U), time on/plain T
N counts the tests that ran (not the "not run" ones, given after the
line, with the lockdep reports that name no crosslock); crossrelease
reports (those naming a crosslock) are untriaged until a line of
--triage (xfstests/triage.tsv: verdict real|false-fixed, a regular
expression that a report's text matches, what it is; # comments) matches
them; the time ratio is over the tests run in both.
"""
import argparse
import os
import re
import sys
import xml.etree.ElementTree as ET

# kernel lines; on the serial console a kernel line may follow check's own
# output on the same line ("generic/001     [  242.68] run fstests ...")
KLINE = re.compile(r'\[ *\d+\.\d+\] ')
MARK = re.compile(r'\[ *\d+\.\d+\] run fstests (\S+) at ')
# what a report involving a crosslock names (Documentation/locking/crossrelease.rst)
XR = re.compile(r'crosslock|\((complete|PG_locked|PG_writeback|BH_Lock)\)|\(xr\)')
COLS = ['test', 'status', 'seconds', 'reports', 'xr_reports', 'warnings', 'run']


def results(rundir):
    """{test: (status, seconds)} from result.xml, or None."""
    path = os.path.join(rundir, 'result.xml')
    if not os.path.exists(path):
        return None
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        print(f'!! {path}: {e}', file=sys.stderr)
        return None
    out = {}
    for tc in root.iter('testcase'):
        st = 'pass'
        if tc.find('failure') is not None or tc.find('error') is not None:
            st = 'fail'
        elif tc.find('skipped') is not None:
            st = 'notrun'
        out[tc.get('name')] = (st, float(tc.get('time') or 0))
    return out


def console(rundir, report_re, crash_re):
    """{test: [report texts]}, {test: warnings}, tests started in order."""
    path = os.path.join(rundir, 'console.log')
    lines = open(path, errors='replace').read().split('\n') if os.path.exists(path) else []
    cur, order, reps, warns = '(boot)', [], {}, {}
    for i, line in enumerate(lines):
        m = MARK.search(line)
        if m:
            cur = m.group(1)
            order.append(cur)
            continue
        k = KLINE.search(line)
        if not k:
            continue
        line = line[k.start():]
        if re.search(report_re, line):
            reps.setdefault(cur, []).append('\n'.join(lines[max(i - 1, 0):i + 59]))
        elif re.search(crash_re, line):
            warns[cur] = warns.get(cur, 0) + 1
    return reps, warns, order


def load(path):
    rows = {}
    if os.path.exists(path):
        for line in open(path):
            f = line.rstrip('\n').split('\t')
            if f and f[0] != 'test' and len(f) == len(COLS):
                rows[f[0]] = dict(zip(COLS, f))
    return rows


def merge(a):
    rundir, vdir = a.merge
    res = results(rundir)
    reps, warns, order = console(rundir, a.report_re, a.crash_re)
    run = os.path.basename(os.path.normpath(rundir))
    tests = list(res) if res is not None else order
    if res is None:
        print(f'!! {rundir}: no result.xml (check did not finish); tests from the console',
              file=sys.stderr)
    ldir = os.path.join(rundir, 'lockdep')
    rows = load(os.path.join(vdir, 'tests.tsv'))
    table = ['| test | status | s | lockdep reports | crossrelease | other warnings |',
             '|---|---|--:|--:|--:|--:|']
    for t in tests + (['(boot)'] if '(boot)' in reps or '(boot)' in warns else []):
        st, secs = res.get(t, ('?', 0)) if res is not None else ('?', 0)
        r = reps.get(t, [])
        nxr = sum(1 for x in r if XR.search(x))
        if r:
            os.makedirs(ldir, exist_ok=True)
            with open(os.path.join(ldir, t.replace('/', '_') + '.txt'), 'w') as f:
                f.write('\n\n'.join(r) + '\n')
        table.append(f'| {t} | {st} | {secs:.0f} | {len(r)} | {nxr} | {warns.get(t, 0)} |')
        if t != '(boot)':
            rows[t] = dict(test=t, status=st, seconds=f'{secs:.0f}', reports=str(len(r)),
                           xr_reports=str(nxr), warnings=str(warns.get(t, 0)), run=run)
    with open(os.path.join(rundir, 'table.md'), 'w') as f:
        f.write('\n'.join(table) + '\n')
    print('\n'.join(table))
    os.makedirs(vdir, exist_ok=True)
    with open(os.path.join(vdir, 'tests.tsv'), 'w') as f:
        f.write('\t'.join(COLS) + '\n')
        for t in sorted(rows):
            f.write('\t'.join(rows[t][c] for c in COLS) + '\n')
    return 0 if res is not None else 1


def triaged(a, fsdir, on):
    """{verdict: count} of the crossrelease reports of the tests in on"""
    rules = []
    if a.triage and os.path.exists(a.triage):
        for line in open(a.triage):
            f = line.rstrip('\n').split('\t')
            if len(f) >= 2 and not f[0].startswith('#'):
                rules.append((f[0], re.compile(f[1], re.S)))
    out = {}
    for t, r in on.items():
        if int(r['xr_reports']) == 0:
            continue
        path = os.path.join(fsdir, 'xr', r['run'], 'lockdep', t.replace('/', '_') + '.txt')
        text = open(path, errors='replace').read() if os.path.exists(path) else ''
        # one report from each headline to the next
        parts = [p for p in re.split(r'\n(?=.*WARNING: possible)', text) if XR.search(p)]
        parts += [''] * (int(r['xr_reports']) - len(parts))
        for p in parts[:int(r['xr_reports'])]:
            v = next((v for v, rx in rules if p and rx.search(p)), 'untriaged')
            out[v] = out.get(v, 0) + 1
    return out


def summary(a):
    fs, fsdir = a.summary
    on = load(os.path.join(fsdir, 'xr', 'tests.tsv'))
    off = load(os.path.join(fsdir, 'plain', 'tests.tsv'))
    if not on:
        print(f'xfstests {fs}: no crossrelease run ({fsdir}/xr/tests.tsv)')
        return 1
    ran = [r for r in on.values() if r['status'] in ('pass', 'fail', '?')]
    failed = [r for r in ran if r['status'] != 'pass']
    notrun = len(on) - len(ran)
    nxr = sum(int(r['xr_reports']) for r in on.values())
    nrep = sum(int(r['reports']) for r in on.values()) - nxr
    tr = triaged(a, fsdir, on)
    if off:
        pfail = sum(1 for r in off.values() if r['status'] in ('fail', '?'))
        both = [t for t, r in on.items() if r['status'] == 'pass' and off.get(t, {}).get('status') == 'pass']
        ts = sum(float(on[t]['seconds']) for t in both)
        tp = sum(float(off[t]['seconds']) for t in both)
        plain, ratio = str(pfail), (f'{ts / tp:.2f} ({len(both)} tests)' if tp else '-')
    else:
        plain, ratio = '-', '- (no plain run)'
    print(f'xfstests {fs}: {len(ran)} run, {len(ran) - len(failed)} passed, {len(failed)} failed '
          f'(plain: {plain}), crossrelease reports {nxr} (real {tr.get("real", 0)}, '
          f'false fixed {tr.get("false-fixed", 0)}, untriaged {tr.get("untriaged", 0)}), '
          f'time on/plain {ratio}; {notrun} not run, other lockdep reports {nrep}, '
          f'{sum(float(r["seconds"]) for r in on.values()):.0f} s of tests')
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--merge', nargs=2, metavar=('RUNDIR', 'VDIR'))
    ap.add_argument('--summary', nargs=2, metavar=('FS', 'FSDIR'))
    ap.add_argument('--triage', help='verdicts of known reports (xfstests/triage.tsv)')
    ap.add_argument('--report-re', default=r'WARNING: possible')
    ap.add_argument('--crash-re', default=r'WARNING:|BUG:|Oops:')
    a = ap.parse_args()
    if a.merge:
        return merge(a)
    if a.summary:
        return summary(a)
    ap.error('--merge or --summary')


if __name__ == '__main__':
    sys.exit(main())
