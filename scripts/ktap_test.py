#!/usr/bin/env python3
"""Checks of ktap.py, the one reader of guest output (run by .ci/run)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktap  # noqa: E402

SUITE = '''KTAP version 1
1..1
    KTAP version 1
    # Subtest: s
    1..3
{body}ok 1 s
'''


def counts(body):
    return ktap.parse(SUITE.format(body=body)).suites['s']


class Replay(unittest.TestCase):
    """7.x consoles print a record again after a takeover."""

    def test_cut_result_line_before_marker(self):
        body = ('[    2.1]     ok 1 a\n'
                '[    2.2]     o\n'
                '** replaying previous printk message **\n'
                '[    2.2]     ok 2 b\n'
                '[    2.3]     ok 3 c\n')
        self.assertEqual(counts(body), [3, 0, 0])

    def test_cut_copy_on_marker_line(self):
        body = ('[    2.1]     ok 1 a\n'
                '[    2.2]     ok 2 b_cut'
                '** replaying previous printk message **\n'
                '[    2.2]     ok 2 b_whole\n'
                '[    2.3]     ok 3 c\n')
        log = ktap.parse(SUITE.format(body=body))
        self.assertEqual(log.suites['s'], [3, 0, 0])
        self.assertIn('b_whole', [r.name for r in log.results])

    def test_whole_line_before_marker_is_kept(self):
        # interrupted before its first character: the line before the
        # marker is the previous record, whole
        body = ('[    2.1]     ok 1 a\n'
                '** replaying previous printk message **\n'
                '[    2.2]     ok 2 b\n'
                '[    2.3]     ok 3 c\n')
        self.assertEqual(counts(body), [3, 0, 0])


class Plan(unittest.TestCase):
    def test_missing_result_fails(self):
        body = '[    2.1]     ok 1 a\n[    2.3]     ok 3 c\n'
        self.assertEqual(counts(body), [2, 1, 0])


if __name__ == '__main__':
    unittest.main()
