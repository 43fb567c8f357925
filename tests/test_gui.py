"""The real Wireshark GUI under Xvfb: scripts/gui_screenshots.py opens the
statistics window, a stall packet's tree and the Lua companion's report
(Tools menu), and fails when a window does not appear."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import tshark_runner as ts

TOOLS = ("wireshark", "Xvfb", "xdotool", "import", "identify")
MISSING = [t for t in TOOLS if not shutil.which(t)]


@unittest.skipIf(MISSING, "needs %s (scripts/install-deps)" % ", ".join(MISSING))
class GuiScreenshots(unittest.TestCase):
    def test_windows_open_and_show_something(self):
        out = tempfile.mkdtemp(prefix="tapo-gui-test-")
        try:
            env = dict(os.environ, TAPO_BUILD_DIR=ts.BUILD)
            proc = subprocess.run([sys.executable, os.path.join(ts.ROOT, "scripts", "gui_screenshots.py"), out],
                                  env=env, capture_output=True, text=True, timeout=300)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            for name in ("tapo-packet-tree.png", "tapo-statistics.png", "tapo-flow-report.png"):
                info = subprocess.run(["identify", "-format", "%w %h %[fx:standard_deviation]",
                                       os.path.join(out, name)], capture_output=True, text=True).stdout.split()
                width, height, spread = int(info[0]), int(info[1]), float(info[2])
                self.assertGreater(width, 600, name)
                self.assertGreater(height, 400, name)
                self.assertGreater(spread, 0.05, name + " looks blank")
        finally:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
