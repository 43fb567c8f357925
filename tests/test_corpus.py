"""The labelled corpus: TAPO's causes versus the lab's labels (two-pass and
one-pass), the relay's ground truth and the kernel's counters.  The
per-cause table is printed (see corpus_check.py)."""

import os
import unittest

import corpus_check
import tshark_runner


class LabelledCorpus(unittest.TestCase):
    def test_labelled_corpus(self):
        status = corpus_check.check_dir(os.path.join(tshark_runner.ROOT, "test-captures"))
        self.assertEqual(status, 0, "the corpus disagrees with TAPO: see the FAIL lines above")


if __name__ == "__main__":
    unittest.main()
