"""When TAPO runs (issue 13): installed but unused it does nothing; asked
for, it analyses the capture in order in the first pass that needs it, even
when that pass comes after other passes (a column added later, a filter
typed after loading in the GUI), and finds every stall.  Timings are in
scripts/bench.py, never asserted here.
"""

import os
import shutil
import subprocess
import tempfile
import unittest

import tshark_runner as ts

MIXED = os.path.join(ts.ROOT, "test-captures", "mixed-web.pcap")


def tapo_expert_lines(args, plugins):
    out = ts.run(args + ["-r", ts.readable(MIXED)], plugin_dir_override=plugins).stdout
    return [l for l in out.splitlines() if "TAPO" in l]


class Activation(unittest.TestCase):
    def test_unused_tapo_does_not_run(self):
        installed = ts.installed_plugin_dir()
        # Nothing names TAPO: no analysis, so nothing of TAPO's in a
        # statistic, and the Lua companion installed beside it stays silent.
        out = ts.run(["-q", "-z", "io,stat,0", "-r", ts.readable(MIXED)], plugin_dir_override=installed)
        self.assertNotIn("TAPO", out.stdout + out.stderr)
        self.assertEqual(tapo_expert_lines(["-2", "-q", "-z", "conv,tcp"], installed), [])

    def test_expert_information_asks_for_tapo(self):
        # Expert information lists TAPO's entries with nothing else naming
        # TAPO (issue 19): a listener on the expert tap asks for it.  Every
        # stall is counted, as when a filter asks for TAPO.
        installed = ts.installed_plugin_dir()
        plain = tapo_expert_lines(["-2", "-q", "-z", "expert"], installed)
        asked = tapo_expert_lines(["-2", "-q", "-z", "expert,tapo"], installed)
        count = lambda lines: sum(int(l.split()[0]) for l in lines if "TAPO stall:" in l)
        self.assertEqual(count(plain), len(ts.stall_fields(MIXED, ["frame.number"])))
        self.assertEqual(count(asked), count(plain))

    def test_a_later_pass_finds_every_stall(self):
        # A profile with a TAPO column and nothing on the command line: the
        # first pass of tshark -2 builds no tree, so nothing asks for TAPO
        # there; the second pass shows the column and TAPO analyses the
        # capture then, in order, as the GUI does when a filter is typed
        # after loading.  Every stall is found, with the verdict known at
        # its packet (as one pass gives it).
        cfg = tempfile.mkdtemp(prefix="tapo-profile-", dir=ts.config_dir())
        try:
            with open(os.path.join(cfg, "preferences"), "w") as f:
                f.write('gui.column.format:\n\t"No.", "%m",\n\t"Cause", "%Cus:tapo.stall.cause:0:R"\n')
            os.chmod(cfg, 0o755)
            os.chmod(os.path.join(cfg, "preferences"), 0o644)
            argv = ts.command(["-2", "-r", ts.readable(MIXED)])
            argv = [a if not a.startswith("WIRESHARK_CONFIG_DIR=") else "WIRESHARK_CONFIG_DIR=" + cfg for a in argv]
            out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
            late = {int(l.split()[0]): l.split()[1] for l in out.splitlines() if len(l.split()) == 2}
            one_pass = {int(f): c for f, c in ts.stall_fields(MIXED, ["frame.number", "tapo.stall.cause"],
                                                               two_pass=False)}
            self.assertGreater(len(late), 20)
            self.assertEqual(late, one_pass)
        finally:
            shutil.rmtree(cfg, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
