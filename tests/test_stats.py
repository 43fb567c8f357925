"""The "TCP Stalls (TAPO)" statistics (tshark -q -z tapo,tree) and the
expert-info summary (tshark -q -z expert,tapo): their numbers are recomputed
from the per-stall fields of the same pass and checked against the
corpus' expected-results files."""

import collections
import glob
import os
import re
import unittest

import corpus_check
import tshark_runner as ts

CAPTURES = os.path.join(ts.ROOT, "test-captures")
ROW = re.compile(r"^( *)(\S.*?)\s{2,}(\d+)\s")
DURATION_BINS = [(0, 99, "0-99"), (100, 199, "100-199"), (200, 499, "200-499"), (500, 999, "500-999"),
                 (1000, 1999, "1000-1999"), (2000, 4999, "2000-4999"), (5000, 10**12, "5000-")]


def parse_tree(text):
    """{("Stalls", "network", "timeout retransmission", "tail"): count, ...}"""
    tree, path = {}, []
    body = text.split("-" * 40, 1)[1]
    for line in body.splitlines():
        m = ROW.match(line)
        if not m:
            continue
        depth = len(m.group(1))
        path = path[:depth] + [m.group(2)]
        tree[tuple(path)] = int(m.group(3))
    return tree


def stats_tree(pcap, two_pass=True, filter_expr=None):
    z = "tapo,tree" + ("," + filter_expr if filter_expr else "")
    args = (["-2"] if two_pass else []) + ["-q", "-z", z, "-r", ts.readable(pcap)]
    return parse_tree(ts.run(args).stdout)


FIELDS = ["tcp.stream", "tapo.stall.cause", "tapo.stall.category", "tapo.stall.retransmission",
          "tapo.stall.duration", "tapo.stall.ca_state", "tapo.vantage", "tapo.stall.confidence",
          "tapo.stall.caveat", "tapo.stall.phase", "tapo.stall.whatif", "tapo.stall.saving", "tapo.episode",
          "tapo.episode.scope", "tapo.episode.cause"]


def expected_tree(pcap, two_pass=True, display_filter=None):
    """The tree the fields of the same pass imply."""
    extra = ["-Y", display_filter] if display_filter else []
    rows = ts.stall_fields(pcap, FIELDS, two_pass=two_pass, extra=extra)
    tree = collections.Counter()
    for (stream, cause, category, retrans, duration, ca_state, vantage, confidence, caveats, phase, mitigation,
         saving, episode, scope, episode_cause) in rows:
        ms = int(float(duration) * 1000.0 + 0.5)
        for root, amount in (("Stalls", 1), ("Stalled time (ms)", ms)):
            path = [root, category] + (["timeout retransmission"] if ts.normalise_bool(retrans) else [])
            for i in range(1, len(path) + 1):
                tree[tuple(path[:i])] += amount
            tree[tuple(path + [cause])] += amount
        if cause in ("f-double", "t-double"):
            tree[("Double retransmissions, stalled time (ms)",)] += ms
            tree[("Double retransmissions, stalled time (ms)", cause)] += ms
        if cause == "tail":
            tree[("Tail stalls by congestion state, stalled time (ms)",)] += ms
            tree[("Tail stalls by congestion state, stalled time (ms)", ca_state)] += ms
        tree[("Stall duration (ms)",)] += 1
        tree[("Stall duration (ms)", next(n for lo, hi, n in DURATION_BINS if lo <= ms <= hi))] += 1
        tree[("Stalls by vantage",)] += 1
        tree[("Stalls by vantage", vantage)] += 1
        tree[("Stalls by phase",)] += 1
        tree[("Stalls by phase", phase)] += 1
        tree[("Stalls by phase", phase, cause)] += 1
        tree[("Stalls by confidence",)] += 1
        tree[("Stalls by confidence", confidence)] += 1
        tree[("Stalls by confidence", confidence, cause)] += 1
        for caveat in filter(None, caveats.split(",")):
            tree[("Stalls by caveat",)] += 1
            tree[("Stalls by caveat", caveat)] += 1
        if mitigation:
            saved = int(float(saving) * 1000.0 + 0.5)
            tree[("What-if savings (ms)",)] += saved
            tree[("What-if savings (ms)", mitigation)] += saved
            tree[("What-if savings (ms)", mitigation, cause)] += saved
        if episode:
            tree[("Stalls in episodes",)] += 1
            tree[("Stalls in episodes", "episode %s: %s, %s" % (episode, scope, episode_cause))] += 1
    streams = ts.run(["-r", ts.readable(pcap), "-T", "fields", "-e", "tcp.stream"] + extra).stdout.split()
    tree[("Conversations analysed",)] = len(set(streams))
    if rows:
        tree[("Conversations analysed", "with stalls")] = len({r[0] for r in rows})
    return tree


def nonzero(tree):
    return {k: v for k, v in tree.items() if v}


class StatsTree(unittest.TestCase):
    def captures(self):
        return sorted(glob.glob(os.path.join(CAPTURES, "*.pcap")))

    def test_tree_matches_the_fields_on_every_capture(self):
        for pcap in self.captures():
            for two_pass in (True, False):
                with self.subTest(capture=os.path.basename(pcap), two_pass=two_pass):
                    self.assertEqual(nonzero(stats_tree(pcap, two_pass)),
                                     nonzero(expected_tree(pcap, two_pass)))

    def test_children_add_up_to_their_parents(self):
        for pcap in self.captures():
            tree = stats_tree(pcap)
            with self.subTest(capture=os.path.basename(pcap)):
                for root in ("Stalls", "Stalled time (ms)"):
                    cats = [v for k, v in tree.items() if len(k) == 2 and k[0] == root]
                    self.assertEqual(sum(cats), tree.get((root,), 0))
                    for k, v in tree.items():
                        if k[0] == root and len(k) >= 2:
                            kids = [w for j, w in tree.items() if len(j) == len(k) + 1 and j[:len(k)] == k]
                            if kids:
                                self.assertEqual(sum(kids), v, k)

    def test_counts_agree_with_the_expected_results(self):
        for path in sorted(glob.glob(os.path.join(CAPTURES, "*.expected"))):
            name = os.path.basename(path)[:-len(".expected")]
            expectations = corpus_check.read_expected(path)
            # A stall that may or may not show ("?N") counts in neither way.
            exact = collections.Counter(e.cause for e in expectations
                                        if not e.is_range and not e.catch_all and not e.optional)
            open_ended = any(e.is_range or e.catch_all or e.optional for e in expectations)
            tree = stats_tree(os.path.join(CAPTURES, name + ".pcap"))
            found = collections.Counter({k[-1]: v for k, v in tree.items()
                                         if k[0] == "Stalls" and len(k) >= 3 and k[-1] != "timeout retransmission"})
            with self.subTest(capture=name):
                for cause, n in exact.items():
                    self.assertGreaterEqual(found[cause], n, cause)
                if not open_ended:
                    self.assertEqual(dict(found), dict(exact))

    def test_display_filter_argument(self):
        pcap = os.path.join(CAPTURES, "mixed-web.pcap")
        for stream in ("0", "3"):
            with self.subTest(stream=stream):
                self.assertEqual(nonzero(stats_tree(pcap, filter_expr="tcp.stream==" + stream)),
                                 nonzero(expected_tree(pcap, display_filter="tcp.stream==" + stream)))


class ExpertSummary(unittest.TestCase):
    SUMMARY = re.compile(r"^\s+(\d+)\s+Sequence\s+TAPO\s+TAPO stall: (\S+) ")

    def test_expert_counts_per_cause(self):
        for pcap in sorted(glob.glob(os.path.join(CAPTURES, "*.pcap"))):
            # TAPO runs when something asks for it: here the expert
            # statistic's filter.
            out = ts.run(["-2", "-q", "-z", "expert,tapo", "-r", ts.readable(pcap)]).stdout
            counted = collections.Counter()
            for line in out.splitlines():
                m = self.SUMMARY.match(line)
                if m:
                    counted[m.group(2)] += int(m.group(1))
            fields = collections.Counter(r[0] for r in ts.stall_fields(pcap, ["tapo.stall.cause"]))
            with self.subTest(capture=os.path.basename(pcap)):
                self.assertEqual(dict(counted), dict(fields))



class Columns(unittest.TestCase):
    """Counts of stalls and milliseconds of stalled time have no rate per
    millisecond of capture nor burst rate: tshark prints neither, and the
    percentages stay (issue 28)."""

    def test_no_rate_or_burst_numbers(self):
        out = ts.run(["-2", "-q", "-z", "tapo,tree", "-r", ts.readable(os.path.join(CAPTURES, "mixed-web.pcap"))]).stdout
        header = next(line for line in out.splitlines() if line.startswith("Topic / Item"))
        self.assertNotIn("Burst", header)
        self.assertIn("Percent", header)
        rate = header.index("Rate (ms)")
        percent = header.index("Percent")
        body = out.split("-" * 40, 1)[1]
        rows = [line for line in body.splitlines() if ROW.match(line)]
        self.assertGreater(len(rows), 20)
        for line in rows:
            self.assertEqual(line[rate:percent].strip(), "", line)
            self.assertRegex(line[percent:].strip(), r"^\d+(\.\d\d)?%$", line)

if __name__ == "__main__":
    unittest.main()
