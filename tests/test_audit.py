"""The expert's check (verdict_audit) on every stall of the captures written
by others (../shared/real-captures, read in place), one pass and two: no
evidence link of the wrong kind, no verdict the packets contradict (spec
section 8).  The labelled corpus gets the same check in test_evidence."""

import collections
import glob
import os
import unittest

import tshark_runner as ts
import verdict_audit

REAL = ts.REAL_CAPTURES


def real_captures():
    return sorted(p for p in glob.glob(os.path.join(REAL, "*")) if not p.endswith((".md", ".tsv")))


@unittest.skipUnless(os.path.isdir(REAL), "no real captures at %s" % REAL)
class AuditOfRealCaptures(unittest.TestCase):
    def audit(self, two_pass):
        kinds, stalls, failures = collections.Counter(), 0, []
        for pcap in real_captures():
            checker, n = verdict_audit.audit_capture(os.path.basename(pcap), pcap, failures.append,
                                                     two_pass=two_pass)
            stalls += n
            kinds.update(checker.kinds)
        self.assertFalse(failures, "%d contradictions:\n%s" % (len(failures), "\n".join(failures)))
        return kinds, stalls

    def test_two_passes(self):
        kinds, stalls = self.audit(two_pass=True)
        self.assertGreater(stalls, 100)
        # The links these captures give are checked, not skipped.
        for f in ("tapo.stall.orig_frame", "tapo.stall.prev_retrans_frame", "tapo.stall.loss_signal_frame",
                  "tapo.stall.window_frame"):
            self.assertGreater(kinds[f], 0, "%s never appears on the real captures" % f)

    def test_one_pass(self):
        self.audit(two_pass=False)


if __name__ == "__main__":
    unittest.main()
