"""The labelled corpus: TAPO's causes versus the lab's labels (two-pass and
one-pass), the relay's ground truth and the kernel's counters.  The
per-cause table is printed (see corpus_check.py)."""

import collections
import os
import unittest

import corpus_check
import tshark_runner


class LabelledCorpus(unittest.TestCase):
    def test_labelled_corpus(self):
        status = corpus_check.check_dir(os.path.join(tshark_runner.ROOT, "test-captures"))
        self.assertEqual(status, 0, "the corpus disagrees with TAPO: see the FAIL lines above")


class LabelLines(unittest.TestCase):
    """How the expected lines judge stalls (corpus_check.compare): a line of
    a frame's own outranks a range around it, as the lab writes the
    reader's late ACKs inside a closed-window span."""

    LINES = ["10-40\tzero-window\tzero-window\tthe span",
             "?21\tpacket-delay\tpacket-delay\ta late ACK with the window open, if a stall"]

    def judge(self, stalls):
        expectations = [corpus_check.Expectation(l) for l in self.LINES]
        table = collections.defaultdict(lambda: [0, 0])
        return corpus_check.compare("case", expectations, stalls, True, table)

    def test_the_frames_own_line_decides(self):
        self.assertEqual(self.judge({19: "zero-window", 21: "packet-delay"}), [])

    def test_the_range_still_judges_the_rest(self):
        self.assertEqual(len(self.judge({19: "packet-delay", 21: "packet-delay"})), 1)

    def test_a_wrong_cause_at_the_named_frame_fails(self):
        self.assertEqual(len(self.judge({19: "zero-window", 21: "zero-window"})), 1)

    def test_no_stall_at_an_optional_frame_is_fine(self):
        self.assertEqual(self.judge({19: "zero-window"}), [])


if __name__ == "__main__":
    unittest.main()
