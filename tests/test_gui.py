"""The real Wireshark GUI under Xvfb: scripts/gui_screenshots.py opens the
statistics window, a stall packet's tree, the Lua companion's report
(Tools menu), the HTML incident report made from the GUI (Tools menu, then
the page in headless Chromium) and the TAPO profile, and fails when a window
does not appear.
The profile's screenshot is read back: its column titles and filter
buttons by OCR (tesseract), its coloring rules by the rows' colours."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import tshark_runner as ts

TOOLS = ("wireshark", "Xvfb", "xdotool", "import", "identify", "convert", "tesseract", "chromium")
PROFILE = os.path.join(ts.ROOT, "profiles", "TAPO")
# What choosing the TAPO profile must show (profiles/TAPO): column titles
# and filter-button labels...
PROFILE_TEXT = ["Stall cause", "Category", "Stalls", "Network", "Server", "Client", "Timeouts"]


def rule_colours():
    """...and the background of each category's stall rows, as 8-bit RGB
    (the colorfilters file gives 16-bit values)."""
    colours = {}
    with open(os.path.join(PROFILE, "colorfilters")) as f:
        for line in f:
            m = re.match(r'@TAPO stall: (\w+)@[^@]*@\[(\d+),(\d+),(\d+)\]', line)
            if m:
                colours[m.group(1)] = "rgb(%s)" % ",".join(str(int(v) >> 8) for v in m.group(2, 3, 4))
    return colours


def pixels_of(image, colour):
    out = subprocess.run(["convert", image, "-fill", "black", "+opaque", colour, "-fill", "white",
                          "-opaque", colour, "-format", "%[fx:round(mean*w*h)]", "info:"],
                         capture_output=True, text=True, check=True).stdout
    return int(out)
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
            for name in ("tapo-packet-tree.png", "tapo-statistics.png", "tapo-flow-report.png",
                         "tapo-html-window.png", "tapo-report.png", "tapo-profile.png"):
                info = subprocess.run(["identify", "-format", "%w %h %[fx:standard_deviation]",
                                       os.path.join(out, name)], capture_output=True, text=True).stdout.split()
                width, height, spread = int(info[0]), int(info[1]), float(info[2])
                self.assertGreater(width, 600, name)
                self.assertGreater(height, 400, name)
                self.assertGreater(spread, 0.05, name + " looks blank")
            self.check_profile(os.path.join(out, "tapo-profile.png"))
        finally:
            shutil.rmtree(out, ignore_errors=True)


    def check_profile(self, image):
        # OCR may read a capital as small ("stalls").
        text = subprocess.run(["tesseract", image, "-"], capture_output=True, text=True).stdout.lower()
        # The status bar's small grey type reads reliably only enlarged.
        status = image + ".status.png"
        subprocess.run(["convert", image, "-gravity", "south", "-crop", "100%x30+0+0", "+repage",
                        "-resize", "300%", status], check=True)
        text += subprocess.run(["tesseract", status, "-"], capture_output=True, text=True).stdout.lower()
        for label in PROFILE_TEXT + ["Profile: TAPO"]:
            self.assertIn(label.lower(), text, "the TAPO profile's %r is not on the screen" % label)
        # mixed-web.pcap has network (tail), server (data-unavailable) and
        # client (client-idle) stalls: rows of each colour.
        colours = rule_colours()
        for category in ("network", "server", "client"):
            self.assertGreater(pixels_of(image, colours[category]), 2000,
                               "no %s stall row in the TAPO profile's colour" % category)


if __name__ == "__main__":
    unittest.main()
