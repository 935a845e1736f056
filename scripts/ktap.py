#!/usr/bin/env python3
"""The workbench's one reader of guest output: KTAP results and figures.

usage: ktap.py [--marker=STRING] LOG    count test cases, "N passed, N failed"
       ktap.py --figure=KEY LOG         the value of figure KEY (the last one)

Handles several KTAP documents in one log (KUnit at boot, kselftests and
the guest scripts from userspace), "[    1.234567] " printk timestamps and
nesting by 4-space indentation.  A result line with results reported right
below it is a suite, otherwise it is a test case; only test cases are
counted.  Results missing versus a "1..N" plan count as failed (crashed or
hung test).  Exit status is non-zero on any failure, on no results, or if
the end marker is missing from the log.

A figure is a diagnostic line "# KEY: VALUE [NAME=VALUE ...]" (KEY without
':'), given to the next result at its depth (guest/lib.sh writes them).
As a module: parse(text) returns a Log with .suites (name -> [passed,
failed, skipped]), .results (Result: depth, name, kind, diag, figures),
.figures (KEY -> VALUE, the last one), .notes and .unlisted (the suites
counted as one failed case of their own: failed with no failed case
listed); split(VALUE) gives the figure's first word and its NAME=VALUE
attributes.
"""
import re
import sys
from collections import namedtuple

TS = re.compile(r'^\[\s*\d+\.\d+\] ?')
RESULT = re.compile(r'^(not ok|ok)\s+(\d+)\s*(?:-\s*)?([^#]*?)\s*(?:#\s*(.*))?$')
PLAN = re.compile(r'^1\.\.(\d+)\s*(?:#\s*(.*))?$')
SUBTEST = re.compile(r'^#\s*Subtest:\s*(.*)$')
FIGURE = re.compile(r'^#\s*([^:]+?):\s+(.*?)\s*$')

Result = namedtuple('Result', 'depth name kind diag figures')
Log = namedtuple('Log', 'suites results figures notes text unlisted failures')
CONTEXT = 6     # lines kept before a failed case, to show why it failed


REPLAY = '** replaying previous printk message **'


def unreplayed(text):
    """The log's lines, each printk record once.

    A 7.x console that takes over from one interrupted mid-record prints
    REPLAY and the record again.  The interrupted copy, cut anywhere
    ("    o" of a result line even), is on the marker's line or ends the
    line before it.  The replay is kept and the cut copy dropped: read
    as a result, a cut copy garbles it or is lost.
    """
    lines = text.replace('\r', '').split('\n')
    out = []
    for i, raw in enumerate(lines):
        cut, marker, _ = raw.partition(REPLAY)
        if not marker:
            out.append(raw)
            continue
        replay = lines[i + 1] if i + 1 < len(lines) else ''
        if not cut.strip() and out and replay.startswith(out[-1].rstrip()):
            out.pop()
    return out


def split(value):
    """'5950 n=5 chunks=1,2' -> ('5950', {'n': '5', 'chunks': '1,2'})"""
    words = value.split()
    attrs = dict(w.split('=', 1) for w in words[1:] if '=' in w)
    return (words[0] if words else ''), attrs


def parse(text, start=None):
    """Results and figures of a log (from the first line holding start)."""
    if start is not None and start in text:
        text = text[text.rfind('\n', 0, text.index(start)) + 1:]
    suites = {}     # name -> [passed, failed, skipped], insertion ordered
    kids = {}       # depth -> kinds of results seen at depth (None = suite)
    plans = {}      # depth -> [planned, seen, owner]
    names = {}      # depth -> name from the last "# Subtest:" line
    pending = {}    # depth -> figures for the next result at that depth
    results, figures, notes, unlisted = [], {}, [], set()
    failures, recent = [], []   # (case, the lines before it); last lines

    def add(suite, kind, n=1):
        counts = suites.setdefault(suite, [0, 0, 0])
        counts[('passed', 'failed', 'skipped').index(kind)] += n

    def check_plan(depth, owner=None):
        plan = plans.pop(depth, None)
        if plan and plan[1] < plan[0]:
            owner = owner or plan[2]
            notes.append(f'{owner}: {plan[0] - plan[1]} planned result(s) '
                         'missing (crash or hang?)')
            add(owner, 'failed', plan[0] - plan[1])

    def flush(depth):
        # anything still open at >= depth belongs to an unfinished document
        for d in sorted([d for d in kids if d >= depth], reverse=True):
            owner = names.get(d, '(unfinished suite)')
            for k in kids.pop(d):
                if k:
                    add(owner, k)
        for d in sorted([d for d in plans if d >= depth], reverse=True):
            check_plan(d)

    for raw in unreplayed(text):
        line = TS.sub('', raw).rstrip()
        body = line.lstrip(' ')
        depth = (len(line) - len(body)) // 4
        if body and not RESULT.match(body):
            recent = (recent + [body])[-CONTEXT:]
        m = SUBTEST.match(body)
        if m:
            names[depth] = m.group(1).strip()
            continue
        m = PLAN.match(body)
        if m:
            skip_all = (m.group(2) or '').upper().startswith('SKIP')
            if skip_all and depth in plans and plans[depth][1] == 0:
                plans.pop(depth)    # "1..0 # SKIP reason" replaces the plan
            flush(depth)
            owner = '(top level)' if depth == 0 else names.get(depth, '(unnamed suite)')
            plans[depth] = [int(m.group(1)), 0, owner]
            continue
        m = FIGURE.match(body)
        if m:
            figures[m.group(1)] = m.group(2)
            pending.setdefault(depth, {})[m.group(1)] = m.group(2)
            continue
        m = RESULT.match(body)
        if not m:
            continue
        ok = m.group(1) == 'ok'
        name = m.group(3) or f'#{m.group(2)}'
        skip = (m.group(4) or '').upper().startswith('SKIP')
        kind = 'skipped' if skip else ('passed' if ok else 'failed')
        if kind == 'failed' and not (kids.get(depth + 1) or depth + 1 in plans):
            failures.append((f"{names.get(depth, '')}.{name}".lstrip('.'), recent))
        recent = []
        results.append(Result(depth, name, kind, m.group(4) or '', pending.pop(depth, {})))
        if depth in plans:
            plans[depth][1] += 1
        below = kids.pop(depth + 1, None)
        if below is not None or depth + 1 in plans:
            # a suite: attribute the cases reported below it
            suites.setdefault(name, [0, 0, 0])
            for k in below or []:
                if k:
                    add(name, k)
            check_plan(depth + 1, name)
            if kind == 'skipped' and not any(suites[name]):
                add(name, 'skipped')    # whole suite skipped
            if kind == 'failed' and suites[name][1] == 0:
                add(name, 'failed')     # e.g. suite init failed
                unlisted.add(name)
            if depth > 0:
                kids.setdefault(depth, []).append(None)
        elif depth == 0:
            add('(top level)', kind)
        else:
            kids.setdefault(depth, []).append(kind)

    flush(0)
    return Log(suites, results, figures, notes, text, unlisted, failures)


def summary(log, marker=None, out=print):
    """Print one line per suite and "N passed, N failed"; the exit status."""
    passed = sum(c[0] for c in log.suites.values())
    failed = sum(c[1] for c in log.suites.values())
    for name, (p, f, s) in log.suites.items():
        out(f"  {'FAIL' if f else 'ok':4} {name}: "
            f'{p} passed, {f} failed, {s} skipped')
    for n in log.notes:
        out(f'!! {n}')
    for name, lines in log.failures:
        out(f'!! failed: {name}')
        for line in lines:
            out(f'!!     {line}')
    rc = 1 if failed else 0
    if marker is not None and marker not in log.text:
        out(f'!! end marker "{marker}" not in the log: guest did not finish')
        rc = 1
    if passed + failed == 0:
        out('!! no test results found in the log')
        rc = 1
    out(f'{passed} passed, {failed} failed')
    return rc


def main(argv):
    marker = figure = None
    while argv and argv[0].startswith('--'):
        opt, _, val = argv.pop(0).partition('=')
        if opt == '--marker':
            marker = val
        elif opt == '--figure':
            figure = val
        else:
            sys.exit(f'ktap.py: unknown option {opt}')
    text = open(argv[0], errors='replace').read() if argv else sys.stdin.read()
    log = parse(text)
    if figure is not None:
        if figure not in log.figures:
            return 1
        print(log.figures[figure])
        return 0
    return summary(log, marker)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
