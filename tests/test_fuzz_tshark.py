"""A bounded run of the tshark fuzz stage (tests/fuzz_tshark.py): mutated
captures read by tshark with the sanitized plugin, one pass and two passes.
A fault of the plugin fails; Wireshark's own faults are reported only.
TAPO_FUZZ_RUNS (default 200) sets the number of mutated captures."""

import os
import unittest

import fuzz_tshark
import sanitized

RUNS = int(os.environ.get("TAPO_FUZZ_RUNS", "200"))


@unittest.skipUnless(sanitized.available(), "no sanitized plugin build at %s" % sanitized.SANITIZE_BUILD)
class TsharkFuzz(unittest.TestCase):
    def test_mutated_captures_never_fault_the_plugin(self):
        totals = fuzz_tshark.fuzz(RUNS, seed=int(os.environ.get("TAPO_FUZZ_SEED", "20151201")))
        self.assertGreaterEqual(totals["runs"], RUNS * 0.9)
        self.assertEqual(totals["plugin"], 0, "the plugin faulted: see the reports above")


if __name__ == "__main__":
    unittest.main()
