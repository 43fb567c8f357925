"""Replays the impairment lab on this machine's kernel and checks that the
labels still hold: timings differ from the committed corpus, the causes
must not.  Needs root, network namespaces and TUN devices; skipped
otherwise (set TAPO_SKIP_LAB=1 to skip it on purpose)."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import corpus_check
import tshark_runner

LAB = os.path.join(tshark_runner.ROOT, "test-captures", "lab", "lab.py")


def lab_possible():
    if os.environ.get("TAPO_SKIP_LAB"):
        return False, "TAPO_SKIP_LAB is set"
    if os.geteuid() != 0:
        return False, "the lab needs root (network namespaces, TUN devices)"
    if not os.path.exists("/dev/net/tun"):
        return False, "no /dev/net/tun"
    # A name of this process's own: a probe of another run at the same
    # moment must not make this one think namespaces are unavailable.
    name = "tapo-probe-%d" % os.getpid()
    probe = subprocess.run(["ip", "netns", "add", name], capture_output=True)
    subprocess.run(["ip", "netns", "del", name], capture_output=True)
    if probe.returncode != 0:
        return False, "network namespaces unavailable: %s" % probe.stderr.decode().strip()
    return True, ""


POSSIBLE, WHY_NOT = lab_possible()


@unittest.skipUnless(POSSIBLE, WHY_NOT)
class LabReplay(unittest.TestCase):
    def test_every_scenario_reproduces_its_labels(self):
        out = tempfile.mkdtemp(prefix="tapo-lab-replay-")
        agreed = False
        try:
            subprocess.run([sys.executable, LAB, "--out", out], check=True)
            subprocess.run(["chmod", "-R", "a+rX", out], check=True)
            agreed = corpus_check.check_dir(out) == 0
            self.assertTrue(agreed, "a lab replay disagrees with its labels: see the FAIL lines above; "
                                    "its captures are kept in %s" % out)
        finally:
            # A disagreement is a fresh run nobody can make again: its
            # captures, relay logs and labels stay for whoever reads why.
            if agreed:
                shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
