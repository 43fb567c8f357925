"""Evidence links and the decision line (spec section 5), checked against
the packets of the whole corpus: every link names a frame that exists and
is of the kind its name says, judged from plain TCP fields that Wireshark
decodes itself (raw sequence numbers, SACK and D-SACK blocks, windows), not
from TAPO; the decision line names the cause and agrees with the fields.
"""

import collections
import functools
import glob
import os
import re
import unittest

import tshark_runner as ts

CAPTURES = os.path.join(ts.ROOT, "test-captures")
LINKS = ["tapo.stall.orig_frame", "tapo.stall.prev_retrans_frame", "tapo.stall.loss_signal_frame",
         "tapo.stall.dsack_frame", "tapo.stall.window_frame", "tapo.stall.window_update_frame"]
STALL_FIELDS = ["frame.number", "tapo.stall.cause", "tapo.stall.rule", "tapo.stall.prev_frame",
                "tapo.stall.mss", "tapo.stall.in_flight", "tapo.stall.packets_out",
                "tapo.stall.retrans_count", "tapo.stall.first_retrans", "tapo.stall.rwnd",
                "tapo.stall.dupthres", "tapo.sender.port", "tapo.vantage"] + LINKS
# Spec section 4: the rule that names each cause ("undetermined" is 1.7
# after a retransmission and 7 otherwise).
RULES = {"f-double": {"1.1"}, "t-double": {"1.1"}, "tail": {"1.2"}, "small-rwnd": {"1.3"},
         "small-cwnd": {"1.3"}, "continuous-loss": {"1.4"}, "ack-delay": {"1.5"},
         "large-dupthres": {"1.6"}, "undetermined": {"1.7", "7"}, "zero-window": {"2"},
         "data-unavailable": {"3"}, "resource-constraint": {"4"}, "client-idle": {"5"},
         "packet-delay": {"6"}}
# Numbers the decision line may quote, and the field each must equal.
QUOTED = [(r"\bin_flight (\d+)", "tapo.stall.in_flight"), (r"\bpackets_out (\d+)", "tapo.stall.packets_out"),
          (r"\bretrans_count (\d+)", "tapo.stall.retrans_count"), (r"\brwnd (\d+)", "tapo.stall.rwnd"),
          (r"\bdupthres (\d+)", "tapo.stall.dupthres"),
          (r"first retransmission (fast|timeout|probe)", "tapo.stall.first_retrans")]
MOD = 2 ** 32


def corpus():
    return sorted(glob.glob(os.path.join(CAPTURES, "*.pcap")) +
                  glob.glob(os.path.join(CAPTURES, "vantage", "*.pcap")))


def before(a, b):
    """a < b in sequence space (RFC 1982 style)."""
    return 0 < (b - a) % MOD < 2 ** 31


def at_or_before(a, b):
    return a == b or before(a, b)


def ints(value):
    return [int(v) for v in value.split(",") if v]


@functools.lru_cache(maxsize=None)
def packets(pcap):
    """Every TCP frame, decoded by Wireshark with raw sequence numbers."""
    fields = ["frame.number", "tcp.stream", "tcp.srcport", "tcp.seq", "tcp.ack", "tcp.len",
              "tcp.flags", "tcp.window_size", "tcp.options.sack_le", "tcp.options.sack_re",
              "tcp.options.sack.dsack_le", "tcp.options.sack.dsack_re", "tcp.analysis.duplicate_ack"]
    args = ["-r", ts.readable(pcap), "-o", "tcp.relative_sequence_numbers:FALSE", "-T", "fields",
            "-E", "separator=/t", "-Y", "tcp"]
    for f in fields:
        args += ["-e", f]
    out = {}
    for line in ts.run(args).stdout.splitlines():
        v = dict(zip(fields, line.split("\t")))
        if not v["tcp.stream"] or "," in v["tcp.stream"]:
            continue   # tunnels with two TCP headers are not in the corpus
        out[int(v["frame.number"])] = {
            "stream": int(v["tcp.stream"]), "port": int(v["tcp.srcport"]),
            "seq": int(v["tcp.seq"]), "ack": int(v["tcp.ack"] or 0), "len": int(v["tcp.len"] or 0),
            "flags": int(v["tcp.flags"], 16), "window": int(v["tcp.window_size"] or 0),
            "sack_le": ints(v["tcp.options.sack_le"]), "sack_re": ints(v["tcp.options.sack_re"]),
            "dsack_le": ints(v["tcp.options.sack.dsack_le"]),
            "dsack_re": ints(v["tcp.options.sack.dsack_re"]),
            "dupack": bool(v["tcp.analysis.duplicate_ack"]),
        }
    return out


def seq_length(p):
    """Sequence numbers a packet occupies: its payload, SYN and FIN."""
    return p["len"] + bool(p["flags"] & 0x02) + bool(p["flags"] & 0x01)


def overlaps(p, q):
    """Two packets of one sender carry a sequence number in common."""
    if not seq_length(p) or not seq_length(q):
        return False
    return before(p["seq"], q["seq"] + seq_length(q)) and before(q["seq"], p["seq"] + seq_length(p))


class Checker:
    def __init__(self, testcase, pcap):
        self.t, self.name = testcase, os.path.relpath(pcap, CAPTURES)
        self.pkts = packets(pcap)
        # Each endpoint's packets in each connection, in frame order.
        self.sent = collections.defaultdict(list)
        for f, p in sorted(self.pkts.items()):
            self.sent[(p["stream"], p["port"])].append((f, p))

    def sent_before(self, p, frame):
        """The packets p's sender sent in its connection before frame."""
        return [(f, q) for f, q in self.sent[(p["stream"], p["port"])] if f < frame]

    def fail(self, stall, what):
        self.t.fail("%s frame %s (%s): %s" % (self.name, stall["frame.number"], stall["tapo.stall.cause"], what))

    def link(self, stall, field):
        frame = int(stall[field])
        cur = self.pkts[int(stall["frame.number"])]
        if frame not in self.pkts or self.pkts[frame]["stream"] != cur["stream"]:
            self.fail(stall, "%s=%d is no frame of this connection" % (field, frame))
        return frame, self.pkts[frame]

    def from_sender(self, stall, p):
        return p["port"] == int(stall["tapo.sender.port"])

    def check(self, stall):
        s = int(stall["frame.number"])
        cur = self.pkts[s]
        checks = {"tapo.stall.orig_frame": self.original, "tapo.stall.prev_retrans_frame": self.earlier_retx,
                  "tapo.stall.loss_signal_frame": self.loss_signal, "tapo.stall.dsack_frame": self.dsack,
                  "tapo.stall.window_frame": self.window_closed,
                  "tapo.stall.window_update_frame": self.window_opened}
        for field in LINKS:
            if stall[field]:
                frame, p = self.link(stall, field)
                checks[field](stall, s, cur, frame, p)

    def original(self, stall, s, cur, o, p):
        """The first transmission of bytes that cur sends again."""
        if not (o < s and self.from_sender(stall, p) and overlaps(p, cur)):
            self.fail(stall, "orig_frame %d does not carry cur's bytes before it" % o)
        for f, q in self.sent_before(p, o):
            if overlaps(q, p) and overlaps(q, cur):
                self.fail(stall, "orig_frame %d is not the first copy: frame %d sent it before" % (o, f))

    def earlier_retx(self, stall, s, cur, r, p):
        """An earlier retransmission of cur's bytes: itself a copy of data sent before."""
        if not (r < s and self.from_sender(stall, p) and overlaps(p, cur)):
            self.fail(stall, "prev_retrans_frame %d does not carry cur's bytes before it" % r)
        copied = any(overlaps(q, p) for f, q in self.sent_before(p, r))
        # Away from the sender an original lost upstream never shows: the
        # first copy seen is then the retransmission.
        lost_upstream = stall["tapo.vantage"] != "sender" and not stall["tapo.stall.orig_frame"]
        if not (copied or lost_upstream):
            self.fail(stall, "prev_retrans_frame %d is no retransmission" % r)
        if stall["tapo.stall.orig_frame"] and not int(stall["tapo.stall.orig_frame"]) < r:
            self.fail(stall, "prev_retrans_frame %d comes before the original" % r)

    def loss_signal(self, stall, s, cur, f, p):
        """A receiver ACK that does not cover cur's first byte and reports
        data above it (SACK) or repeats itself (a duplicate ACK)."""
        if not (f < s and not self.from_sender(stall, p) and p["flags"] & 0x10):
            self.fail(stall, "loss_signal_frame %d is no earlier ACK from the receiver" % f)
        if not at_or_before(p["ack"], cur["seq"]):
            self.fail(stall, "loss_signal_frame %d already acknowledges cur's bytes" % f)
        sack_above = any(before(cur["seq"], re) for re in p["sack_re"])
        if not (sack_above or p["dupack"]):
            self.fail(stall, "loss_signal_frame %d is neither a SACK above cur nor a duplicate ACK" % f)

    def dsack(self, stall, s, cur, f, p):
        """Wireshark's own D-SACK block covering cur's bytes, after cur."""
        if not (f > s and not self.from_sender(stall, p)):
            self.fail(stall, "dsack_frame %d is no later packet of the receiver" % f)
        if not any(before(le, cur["seq"] + cur["len"]) and before(cur["seq"], re)
                   for le, re in zip(p["dsack_le"], p["dsack_re"])):
            self.fail(stall, "dsack_frame %d has no D-SACK block over cur's bytes" % f)

    def receiver_windows(self, stall, first, last):
        stream = self.pkts[int(stall["frame.number"])]["stream"]
        sender = int(stall["tapo.sender.port"])
        receiver = [key for key in self.sent if key[0] == stream and key[1] != sender]
        return [(f, q) for key in receiver for f, q in self.sent[key]
                if first <= f <= last and q["flags"] & 0x10 and not q["flags"] & 0x02]

    def window_closed(self, stall, s, cur, w, p):
        """The receiver's advertisement below one MSS that stayed in force
        until the stall began."""
        mss, prev = int(stall["tapo.stall.mss"]), int(stall["tapo.stall.prev_frame"])
        if not (w <= prev and not self.from_sender(stall, p) and p["window"] < mss):
            self.fail(stall, "window_frame %d is no receiver window below %d bytes before the gap" % (w, mss))
        for f, q in self.receiver_windows(stall, w, prev):
            if q["window"] >= mss:
                self.fail(stall, "window_frame %d: frame %d opened the window before the gap" % (w, f))

    def window_opened(self, stall, s, cur, u, p):
        """The first receiver packet at or after the stall's end that opened it again."""
        mss = int(stall["tapo.stall.mss"])
        if not (u >= s and not self.from_sender(stall, p) and p["window"] >= mss):
            self.fail(stall, "window_update_frame %d is no receiver window of %d bytes or more" % (u, mss))
        closed = int(stall["tapo.stall.window_frame"] or 0)
        if not closed:
            self.fail(stall, "window_update_frame %d without a closed window" % u)
        for f, q in self.receiver_windows(stall, closed, u - 1):
            if q["window"] >= mss:
                self.fail(stall, "window_update_frame %d: frame %d opened the window first" % (u, f))

    def check_rule(self, stall):
        rule, cause = stall["tapo.stall.rule"], stall["tapo.stall.cause"]
        m = re.match(r"^(\d(?:\.\d)?) ([a-z-]+): (.+)$", rule)
        if not m or m.group(2) != cause or m.group(1) not in RULES[cause]:
            self.fail(stall, "decision line %r does not name rule %s of cause %s" % (rule, RULES[cause], cause))
        for pattern, field in QUOTED:
            q = re.search(pattern, m.group(3))
            if q and q.group(1) != stall[field]:
                self.fail(stall, "decision line quotes %s, the field %s says %s" % (q.group(0), field, stall[field]))


class EvidenceLinks(unittest.TestCase):
    def run_corpus(self, two_pass):
        kinds, stalls = collections.Counter(), 0
        for pcap in corpus():
            checker = Checker(self, pcap)
            for row in ts.stall_fields(pcap, STALL_FIELDS, two_pass=two_pass):
                stall = dict(zip(STALL_FIELDS, row))
                stalls += 1
                checker.check(stall)
                checker.check_rule(stall)
                kinds.update(f for f in LINKS if stall[f])
        return kinds, stalls

    def test_every_link_is_of_its_kind_two_passes(self):
        kinds, stalls = self.run_corpus(two_pass=True)
        self.assertGreater(stalls, 100)
        # Every kind of link occurs in the corpus, so none is checked vacuously.
        for f in LINKS:
            self.assertGreater(kinds[f], 0, "%s never appears on the corpus" % f)

    def test_every_link_is_of_its_kind_one_pass(self):
        kinds, _ = self.run_corpus(two_pass=False)
        for f in ("tapo.stall.orig_frame", "tapo.stall.prev_retrans_frame", "tapo.stall.loss_signal_frame",
                  "tapo.stall.window_frame"):
            self.assertGreater(kinds[f], 0, "%s never appears in one pass" % f)


class LinksWhereTheyApply(unittest.TestCase):
    """Captures at the sender show every transmission: their doubles link
    the earlier retransmission, their zero-window stalls the advertisement
    and the update, their spurious retransmissions the D-SACK."""

    def rows(self, name, fields):
        return [dict(zip(["frame.number", "tapo.stall.cause"] + fields, r))
                for r in ts.stall_fields(os.path.join(CAPTURES, name + ".pcap"),
                                         ["frame.number", "tapo.stall.cause"] + fields)]

    def test_f_double_links_the_lost_fast_retransmission(self):
        stall, = [r for r in self.rows("f-double", LINKS + ["tapo.stall.first_retrans"])
                  if r["tapo.stall.cause"] == "f-double"]
        for f in ("tapo.stall.orig_frame", "tapo.stall.prev_retrans_frame", "tapo.stall.loss_signal_frame"):
            self.assertTrue(stall[f], "%s missing on the f-double stall" % f)
        self.assertEqual(stall["tapo.stall.first_retrans"], "fast")

    def test_zero_window_links_the_advertisement(self):
        rows = [r for r in self.rows("zero-window", LINKS) if r["tapo.stall.cause"] == "zero-window"]
        self.assertTrue(rows)
        for r in rows:
            self.assertTrue(r["tapo.stall.window_frame"], "frame %s: no window_frame" % r["frame.number"])
            self.assertTrue(r["tapo.stall.window_update_frame"],
                            "frame %s: no window_update_frame" % r["frame.number"])

    def test_ack_delay_links_the_dsack(self):
        rows = [r for r in self.rows("ack-delay", LINKS) if r["tapo.stall.cause"] == "ack-delay"]
        self.assertTrue(rows)
        for r in rows:
            self.assertTrue(r["tapo.stall.dsack_frame"], "frame %s: no dsack_frame" % r["frame.number"])
