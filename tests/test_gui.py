"""The real Wireshark GUI under Xvfb.

scripts/gui_screenshots.py opens the statistics window, a stall packet's
tree, the Lua companion's report (Tools menu, after choosing the TAPO
profile in the status bar), the HTML incident report made from the GUI
(Tools menu, then the page in headless Chromium) and the TAPO profile, and
fails when a window does not appear; the profile's screenshot is read back:
its column titles and filter buttons by OCR (tesseract), its coloring rules
by the rows' colours.

Then what trips a new user (issue 28), walked as one would:
- a capture opened in the Default profile, the TAPO profile chosen in the
  status bar, Tools > TAPO > Flow report: the report, no request to
  restart, nothing false on standard error;
- Tools > TAPO > HTML incident report on a capture of two link types: the
  page tapo --html writes for that file, named after it, and nothing else
  left in the temporary folder;
- the TAPO profile in a 1600-pixel window: IPv6 addresses of 39 characters
  whole in their columns, the Info column in view."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import pcapfile
import tshark_runner as ts

TOOLS = ("wireshark", "Xvfb", "xdotool", "import", "identify", "convert", "tesseract", "chromium", "mergecap")
PROFILE = os.path.join(ts.ROOT, "profiles", "TAPO")
CAPTURES = os.path.join(ts.ROOT, "test-captures")
# What choosing the TAPO profile must show (profiles/TAPO): column titles
# and filter-button labels...
PROFILE_TEXT = ["Stall cause", "Category", "Stalls", "Network", "Server", "Client", "Timeouts", "Info"]


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


def ocr(image, crop=None, scale=None):
    """The text tesseract reads in image (a crop of it, enlarged), lower case."""
    src = image
    if crop or scale:
        src = image + ".ocr.png"
        args = ["convert", image]
        if crop:
            args += ["-crop", "%dx%d+%d+%d" % crop, "+repage"]
        if scale:
            args += ["-resize", "%d%%" % scale]
        subprocess.run(args + [src], check=True)
    return subprocess.run(["tesseract", src, "-"], capture_output=True, text=True).stdout.lower()


def same_pixels(a, crop_a, b, crop_b):
    """Whether a region of one screenshot and one of another are identical."""
    pa, pb = a + ".cmp.png", b + ".cmp.png"
    subprocess.run(["convert", a, "-crop", "%dx%d+%d+%d" % crop_a, "+repage", pa], check=True)
    subprocess.run(["convert", b, "-crop", "%dx%d+%d+%d" % crop_b, "+repage", pb], check=True)
    out = subprocess.run(["compare", "-metric", "AE", pa, pb, "null:"], capture_output=True, text=True)
    return out.stderr.strip() == "0"


MISSING = [t for t in TOOLS if not shutil.which(t)]
# In a 1600x900 main window with Debian 12's fonts: the packet list's
# header row, and its second row (the first is selected).
HEADER_Y = 96
ROWS_Y = 131


@unittest.skipIf(MISSING, "needs %s (scripts/install-deps)" % ", ".join(MISSING))
class GuiScreenshots(unittest.TestCase):
    def test_windows_open_and_show_something(self):
        out = tempfile.mkdtemp(prefix="tapo-gui-test-")
        try:
            env = dict(os.environ, TAPO_BUILD_DIR=ts.BUILD)
            proc = subprocess.run([sys.executable, os.path.join(ts.ROOT, "scripts", "gui_screenshots.py"), out],
                                  env=env, capture_output=True, text=True, timeout=400)
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
        text = ocr(image)
        # The status bar's small grey type reads reliably only enlarged.
        height = int(subprocess.run(["identify", "-format", "%h", image], capture_output=True, text=True).stdout)
        width = int(subprocess.run(["identify", "-format", "%w", image], capture_output=True, text=True).stdout)
        text += ocr(image, crop=(width, 30, 0, height - 30), scale=300)
        for label in PROFILE_TEXT + ["Profile: TAPO"]:
            self.assertIn(label.lower(), text, "the TAPO profile's %r is not on the screen" % label)
        # mixed-web.pcap has network (tail), server (data-unavailable) and
        # client (client-idle) stalls: rows of each colour.
        colours = rule_colours()
        for category in ("network", "server", "client"):
            self.assertGreater(pixels_of(image, colours[category]), 2000,
                               "no %s stall row in the TAPO profile's colour" % category)


def two_link_types(path, work):
    """f-double.pcap (raw IP) and mixed-web.pcap made Ethernet, in one
    pcapng of two interfaces (the case Wireshark 4.0's pcapng dumper
    cannot write from Lua)."""
    eth = os.path.join(work, "eth.pcap")
    _, records = pcapfile.read_pcap(os.path.join(CAPTURES, "mixed-web.pcap"))
    header = b"\x02\x00\x00\x00\x00\x01" + b"\x02\x00\x00\x00\x00\x02" + b"\x08\x00"
    pcapfile.write_pcap(eth, [(t, header + d, orig + 14) for t, d, orig in records],
                        linktype=pcapfile.LINKTYPE_ETHERNET)
    subprocess.run(["mergecap", "-F", "pcapng", "-w", path, os.path.join(CAPTURES, "f-double.pcap"), eth],
                   check=True, capture_output=True)


def page_data(path):
    with open(path, encoding="utf-8") as f:
        m = re.search(r"const TAPO = (\{.*?\});\n</script>", f.read(), re.S)
    return json.loads(m.group(1))


@unittest.skipIf(MISSING, "needs %s (scripts/install-deps)" % ", ".join(MISSING))
class NewUser(unittest.TestCase):
    """What a new user does, in one Wireshark session each."""

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, os.path.join(ts.ROOT, "scripts"))
        os.environ["TAPO_BUILD_DIR"] = ts.BUILD
        import gui_screenshots
        cls.g = gui_screenshots
        cls.out = tempfile.mkdtemp(prefix="tapo-gui-new-user-")
        cls.gui = gui_screenshots.Gui(cls.out)

    @classmethod
    def tearDownClass(cls):
        cls.gui.close()
        shutil.rmtree(cls.out, ignore_errors=True)

    def stderr(self):
        with open(self.gui.stderr_path) as f:
            return f.read()

    def test_profile_switch_then_flow_report(self):
        gui = self.gui
        gui.open("mixed-web.pcap", "-C", "Default")   # the companion inactive
        gui.choose_profile(1)                 # TAPO, from the status bar
        gui.tools_tapo(0)
        window = gui.wait_window("TAPO flow report")
        gui.xdo("windowsize", window, 1600, 600)
        gui.xdo("windowmove", window, 0, 0)
        gui.shot(window, "flow-report-after-switch.png")
        text = ocr(os.path.join(self.out, "flow-report-after-switch.png"), scale=200)
        self.assertIn("tapo flow report (two-pass: final causes)", text)
        self.assertIn("flows: 10, with stalls: 10", text)
        self.assertNotIn("restart", text)
        # Standard error says nothing false: the C plugin is loaded; what
        # waits for a restart is only the per-packet tapoflow.* fields.
        self.assertNotIn("not loaded", self.stderr())
        for line in self.stderr().splitlines():
            if "TAPO companion" in line:
                self.assertIn("tapoflow.* fields in the packet details take effect when Wireshark starts", line)

    def test_html_report_of_a_capture_of_two_link_types(self):
        gui = self.gui
        work = tempfile.mkdtemp(prefix="tapo-two-links-")
        try:
            capture = os.path.join(work, "two-links.pcapng")
            two_link_types(capture, work)
            name = gui.add_capture(capture)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        for f in os.listdir(gui.reports):
            os.remove(os.path.join(gui.reports, f))
        gui.open(name)
        gui.tools_tapo(1)
        gui.wait_window("TAPO HTML report")
        # Named after the capture, and nothing else left behind.
        self.assertEqual(os.listdir(gui.reports), ["two-links-tapo-report.html"])
        page = os.path.join(gui.reports, "two-links-tapo-report.html")
        opened = os.path.join(gui.tmp, name)
        shown = page_data(page)
        self.assertEqual(shown["sets"][0]["files"], [opened])
        # The page tapo --html writes for that file (but for the time it
        # was made: the plugin's preferences are the defaults).
        own = os.path.join(gui.tmp, "own.html")
        subprocess.run([os.path.join(ts.BUILD, "tapo"), "-q", "--html", own, opened], check=True)
        mine = page_data(own)
        del shown["generated"], mine["generated"]
        self.assertEqual(shown, mine)
        self.assertGreater(shown["sets"][0]["stalls"], 20)

    def test_tapo_profile_at_1600_pixels(self):
        gui = self.gui
        work = tempfile.mkdtemp(prefix="tapo-ipv6-")
        try:
            capture = os.path.join(work, "ipv6-long.pcap")
            long_ipv6(capture)
            name = gui.add_capture(capture)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        # The same rows with the address columns twice as wide: the
        # profile's own widths cut nothing if the cells look the same.
        profiles = os.path.join(gui.profile, "profiles")
        wide = os.path.join(profiles, "TAPO-wide")
        shutil.rmtree(wide, ignore_errors=True)
        shutil.copytree(os.path.join(profiles, "TAPO"), wide)
        with open(os.path.join(wide, "recent")) as f:
            recent = f.read()
        widths = dict(re.findall(r"^\t(%\S+?), (\d+)", recent, re.M))
        with open(os.path.join(wide, "recent"), "w") as f:
            f.write(re.sub(r"^\t(%[sd]), (\d+)", lambda m: "\t%s, %d" % (m.group(1), 2 * int(m.group(2))),
                           recent, flags=re.M))
        subprocess.run(["chmod", "-R", "a+rwX", profiles], check=True)
        shots = {}
        for profile in ("TAPO", "TAPO-wide"):
            main = gui.open(name, "-C", profile, size=(1600, 900))
            gui.shot(main, profile + ".png")
            shots[profile] = os.path.join(self.out, profile + ".png")
        before = ["%m", "%t", "%Cus:tapo.stall.cause", "%Cus:tapo.stall.category", "%Cus:tapo.stall.duration"]
        source = sum(int(widths[c]) for c in before)
        cell = int(widths["%s"]) - 4
        top, height = ROWS_Y, 17 * 10          # ten rows below the first (selected) one
        for column, x, x_wide in (("Source", source, source),
                                  ("Destination", source + int(widths["%s"]), source + 2 * int(widths["%s"]))):
            self.assertTrue(same_pixels(shots["TAPO"], (cell, height, x, top),
                                        shots["TAPO-wide"], (cell, height, x_wide, top)),
                            "an IPv6 address is cut in the %s column" % column)
        header = ocr(shots["TAPO"], crop=(1600, 20, 0, HEADER_Y), scale=300)
        self.assertIn("info", header, "the Info column is out of view at 1600 pixels")


def long_ipv6(path):
    """Two connections between IPv6 addresses of 39 characters, each with a
    server think time."""
    import hostile
    recs, t = [], 0.0
    pairs = [("2001:db8:1234:5678:9abc:def0:1234:5678", "fd12:3456:789a:bcde:f012:3456:789a:bcde"),
             ("fd12:3456:789a:bcde:f012:3456:789a:bcd1", "2001:db8:1234:5678:9abc:def0:1234:5679")]
    for i, (client, server) in enumerate(pairs):
        conn = pcapfile.Connection(client=(client, 40000 + i), server=(server, 443))
        recs += conn.handshake(t)
        recs.append((t + 0.1, conn.packet(0, 1, 1, pcapfile.ACK | pcapfile.PSH, window=4096, payload=b"GET /\r\n")))
        part, _ = hostile.response(conn, t + 0.6, 1, 4, 8)
        recs += part
        t += 1.0
    pcapfile.write_pcap(path, sorted(recs, key=lambda r: r[0]))


if __name__ == "__main__":
    unittest.main()
