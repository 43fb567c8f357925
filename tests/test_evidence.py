"""Evidence links and the decision line (spec section 5) on the labelled
corpus: every link names a frame of the kind its name says (checked by
verdict_audit from plain TCP fields that Wireshark decodes itself, not from
TAPO), every kind of link occurs, and the captures made at the sender link
what they must.  test_audit runs the same checks on every other capture.
"""

import collections
import glob
import os
import unittest

import tshark_runner as ts
import verdict_audit
from verdict_audit import LINKS

CAPTURES = os.path.join(ts.ROOT, "test-captures")


def corpus():
    return sorted(glob.glob(os.path.join(CAPTURES, "*.pcap")) +
                  glob.glob(os.path.join(CAPTURES, "vantage", "*.pcap")))


class EvidenceLinks(unittest.TestCase):
    def run_corpus(self, two_pass):
        kinds, stalls, failures = collections.Counter(), 0, []
        for pcap in corpus():
            checker, n = verdict_audit.audit_capture(os.path.relpath(pcap, CAPTURES), pcap, failures.append,
                                                     two_pass=two_pass)
            stalls += n
            kinds.update(checker.kinds)
        self.assertFalse(failures, "\n".join(failures))
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
