#!/usr/bin/env python3
"""The blind verdict set (tests/verdicts/verdicts.tsv) scored against TAPO.

Each row is a gap or a retransmission that a reader judged from the packets
alone: the expected cause, a set "a|b" where the packets cannot decide, or
"none" for no stall.  TAPO is right on a row when its two-pass verdict at
that frame is in the set ("none": it reports no stall there).

    tests/verdict_set.py [--half development|held-out] [--batch] [--misses]

--batch reads TAPO's verdicts from the batch analyser (build/tapo), which
agrees with the plugin frame for frame (test_batch); the test reads them
through tshark and the plugin.
"""

import argparse
import collections
import csv
import json
import os
import subprocess
import sys

import tshark_runner as ts

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "verdicts", "verdicts.tsv")
FIELDS = ["frame.number", "tapo.stall.cause", "tapo.stall.confidence"]


def rows(half=None):
    with open(TABLE) as f:
        lines = [line for line in f if not line.startswith("#")]
    table = list(csv.DictReader(lines, delimiter="\t"))
    return [r for r in table if half is None or r["half"] == half]


def verdicts_by_plugin(pcap):
    """{frame: (cause, confidence)} of the plugin's two-pass stalls."""
    return {int(f): (c, k) for f, c, k in ts.stall_fields(pcap, FIELDS)}


def verdicts_by_batch(pcap):
    out = subprocess.run([os.path.join(ts.BUILD, "tapo"), "-q", "-F", "jsonl", pcap], capture_output=True,
                         text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        r = json.loads(line)
        found[int(r["frame.number"])] = (r["tapo.stall.cause"], r["tapo.stall.confidence"])
    return found


class Score:
    """Right and total per key."""

    def __init__(self):
        self.right, self.total = collections.Counter(), collections.Counter()

    def add(self, key, ok):
        self.total[key] += 1
        self.right[key] += bool(ok)

    def share(self, key):
        return self.right[key] / self.total[key] if self.total[key] else 1.0

    def line(self, key):
        return "%d of %d (%.1f%%)" % (self.right[key], self.total[key], 100.0 * self.share(key))


class Scores:
    """Right and total per (half, vantage), per half, per confidence, and
    the first readers' labels per half (before adjudication)."""

    def __init__(self):
        self.by_vantage, self.by_half, self.by_confidence, self.first = Score(), Score(), Score(), Score()


def score(table, batch=False):
    """Returns (outcomes, Scores)."""
    read = verdicts_by_batch if batch else verdicts_by_plugin
    cache, outcomes, s = {}, [], Scores()
    for r in table:
        pcap = os.path.join(ts.REAL_CAPTURES, r["capture"])
        if pcap not in cache:
            cache[pcap] = read(pcap)
        cause, confidence = cache[pcap].get(int(r["frame"]), ("none", None))
        ok = cause in r["expected"].split("|")
        outcomes.append((r, cause, confidence, ok))
        s.by_vantage.add((r["half"], r["vantage"]), ok)
        s.by_half.add(r["half"], ok)
        s.by_half.add("all", ok)
        for key in (r["half"], "all"):
            s.first.add(key, cause in r["first"].split("|"))
        if confidence:
            s.by_confidence.add(confidence, ok)
    return outcomes, s


def report(s):
    """The score as a table of lines."""
    lines = []
    for key in sorted(s.by_vantage.total):
        lines.append("%-12s %-9s %s" % (key[0], key[1], s.by_vantage.line(key)))
    for key in sorted(s.by_half.total):
        lines.append("%-22s %s   (first readings: %s)" % (key, s.by_half.line(key), s.first.line(key)))
    for key in ("high", "medium", "low"):
        lines.append("confidence %-11s %s" % (key, s.by_confidence.line(key)))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--half", choices=("development", "held-out"))
    ap.add_argument("--batch", action="store_true")
    ap.add_argument("--misses", action="store_true", help="list the rows TAPO gets wrong")
    a = ap.parse_args()
    outcomes, s = score(rows(a.half), a.batch)
    print(report(s))
    if a.misses:
        for r, cause, confidence, ok in outcomes:
            if not ok:
                print("MISS %s frame %s (%s, %s): expected %s, TAPO %s (%s) | %s" % (
                    r["capture"], r["frame"], r["vantage"], r["reader"], r["expected"], cause, confidence,
                    r["evidence"][:300]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
