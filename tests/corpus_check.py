#!/usr/bin/env python3
"""Runs TAPO over labelled captures and compares with their expected results.

    tests/corpus_check.py [DIR]        (default: test-captures/)

For every DIR/NAME.expected it runs tshark with the plugin, two-pass and
one-pass, and checks both ways: every expected stall is found with its
cause (the one-pass cause in one pass), and every stall TAPO reports is
expected.  It prints a per-cause table of expected versus found and exits
non-zero on any difference.
"""

import collections
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tshark_runner  # noqa: E402

ROOT = tshark_runner.ROOT


class Expectation:
    def __init__(self, line):
        where, self.cause, self.one_pass, self.reason = line.rstrip("\n").split("\t", 3)
        if "-" in where:
            lo, hi = where.split("-")
            self.first, self.last = int(lo), int(hi)
        else:
            self.first = self.last = int(where)
        self.is_range = self.first != self.last

    def covers(self, frame):
        return self.first <= frame <= self.last

    def cause_for(self, two_pass):
        return self.cause if two_pass else self.one_pass


def read_expected(path):
    with open(path) as f:
        return [Expectation(l) for l in f if l.strip() and not l.startswith("#")]


def tapo_stalls(pcap, two_pass):
    rows = tshark_runner.stall_fields(pcap, ["frame.number", "tapo.stall.cause", "tapo.stall.final"],
                                      two_pass=two_pass)
    stalls = {}
    for frame, cause, final in rows:
        if tshark_runner.normalise_bool(final) != two_pass:
            raise AssertionError("%s frame %s: tapo.stall.final=%s in %s mode" % (
                pcap, frame, final, "two-pass" if two_pass else "one-pass"))
        stalls[int(frame)] = cause
    return stalls


def compare(name, expectations, stalls, two_pass, table):
    """Returns a list of problems; fills table[cause] = [expected, matched]."""
    problems = []
    claimed = set()
    for e in expectations:
        want = e.cause_for(two_pass)
        table[want][0] += 1
        inside = {f: c for f, c in stalls.items() if e.covers(f)}
        claimed.update(inside)
        if not inside:
            problems.append("%s: frame %s: expected %s, TAPO found no stall" % (
                name, e.first if not e.is_range else "%d-%d" % (e.first, e.last), want))
            continue
        wrong = {f: c for f, c in inside.items() if c != want}
        if wrong:
            problems.extend("%s: frame %d: expected %s, TAPO says %s (%s)" % (
                name, f, want, c, e.reason) for f, c in sorted(wrong.items()))
        else:
            table[want][1] += 1
    for f in sorted(set(stalls) - claimed):
        problems.append("%s: frame %d: TAPO found an unexpected %s stall" % (name, f, stalls[f]))
    return problems


def check_dir(directory):
    files = sorted(glob.glob(os.path.join(directory, "*.expected")))
    if not files:
        print("no .expected files in %s" % directory)
        return 1
    problems = []
    tables = {True: collections.defaultdict(lambda: [0, 0]), False: collections.defaultdict(lambda: [0, 0])}
    for path in files:
        name = os.path.basename(path)[:-len(".expected")]
        pcap = os.path.join(directory, name + ".pcap")
        expectations = read_expected(path)
        for two_pass in (True, False):
            stalls = tapo_stalls(pcap, two_pass)
            problems += compare(name + (" (two-pass)" if two_pass else " (one-pass)"),
                                expectations, stalls, two_pass, tables[two_pass])
    for two_pass in (True, False):
        table = tables[two_pass]
        print("\n%s: expected stalls (a range counts once) versus matched" % (
            "two-pass (final)" if two_pass else "one-pass (provisional)"))
        print("  %-20s %8s %8s" % ("cause", "expected", "matched"))
        for cause in sorted(table):
            exp, ok = table[cause]
            print("  %-20s %8d %8d%s" % (cause, exp, ok, "" if exp == ok else "   <-- MISMATCH"))
    print("\n%d captures checked" % len(files))
    for p in problems:
        print("FAIL " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(check_dir(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "test-captures")))
