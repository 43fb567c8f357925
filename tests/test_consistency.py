"""However TAPO is asked for, a capture gets the same stalls, fields and
trees (issue 17): tshark -2 naming TAPO (analysed in the first pass),
tshark -2 -V with a filter that names no TAPO field (TAPO is needed only
in the second pass: it reads the capture ahead), and the real GUI under
Xvfb, with the TAPO profile and a tapo filter from the start (every frame
rendered while loading) and with the Default profile and the statistics
window asked for after loading.  The GUI's renders are read from TAPO's
debug log (--log-debug TAPO: one line per stall rendered, with its pass).
"""

import os
import re
import shutil
import sys
import tempfile
import time
import unittest

import tshark_runner as ts

sys.path.insert(0, os.path.join(ts.ROOT, "scripts"))

# A capture written by others whose one-pass and final verdicts differ, and
# corpus captures of several causes.
REAL = os.path.join(ts.REAL_CAPTURES, "ntop__nDPI__KakaoTalk_chat.pcap")
CORPUS = [os.path.join(ts.ROOT, "test-captures", name)
          for name in ("mixed-web.pcap", "mixed-lossy-bulk.pcap", "ack-delay.pcap")]
RENDER = re.compile(r"frame (\d+): (\S+) stall \((final|one pass)\)")


def final_stalls(capture):
    """{frame: cause} of tshark -2 naming TAPO."""
    rows = ts.stall_fields(capture, ["frame.number", "tapo.stall.cause", "tapo.stall.final"])
    for frame, cause, final in rows:
        assert ts.normalise_bool(final), "frame %s is not final in two passes" % frame
    return {int(frame): cause for frame, cause, _ in rows}


def verbose_stalls(capture, extra=()):
    """{frame: (cause, final)} from tshark -2 -V, whose command line names
    no TAPO field."""
    out = ts.run(["-2", "-V", "-r", ts.readable(capture)] + list(extra)).stdout
    stalls, frame = {}, None
    for line in out.splitlines():
        m = re.match(r"Frame (\d+):", line)
        if m:
            frame = int(m.group(1))
        m = re.search(r"TCP Stall Analysis \(TAPO\): (\S+) stall of", line)
        if m:
            stalls[frame] = [m.group(1), None]
        m = re.search(r"\[Final: (\w+)\]", line)
        if m and frame in stalls:
            stalls[frame][1] = ts.normalise_bool(m.group(1))
    return {f: tuple(v) for f, v in stalls.items()}


class Tshark(unittest.TestCase):
    def test_verbose_without_tapo_on_the_command_line(self):
        for capture in [REAL] + CORPUS:
            if not os.path.exists(capture):
                continue
            expected = final_stalls(capture)
            got = verbose_stalls(capture)
            self.assertEqual({f: c for f, (c, _) in got.items()}, expected, capture)
            self.assertTrue(all(final for _, final in got.values()), capture)

    def test_one_frame_with_verbose_and_a_frame_filter(self):
        if not os.path.exists(REAL):
            self.skipTest("no shared captures")
        expected = final_stalls(REAL)
        for frame in sorted(expected)[:4]:
            got = verbose_stalls(REAL, ["-Y", "frame.number == %d" % frame])
            self.assertEqual(got, {frame: (expected[frame], True)})

    def test_one_pass_is_deterministic(self):
        """One pass renders what was known at each packet: the same every
        time (final false), whichever way it is asked for."""
        if not os.path.exists(REAL):
            self.skipTest("no shared captures")
        rows = [ts.stall_fields(REAL, ["frame.number", "tapo.stall.cause", "tapo.stall.final"], two_pass=False)
                for _ in range(2)]
        self.assertEqual(rows[0], rows[1])
        self.assertTrue(all(not ts.normalise_bool(final) for _, _, final in rows[0]))
        one_pass_v = ts.run(["-V", "-r", ts.readable(REAL)]).stdout
        self.assertEqual(len(re.findall(r"TCP Stall Analysis \(TAPO\): \S+ stall of", one_pass_v)), len(rows[0]))


GUI_TOOLS = ("wireshark", "Xvfb", "xdotool")
GUI_MISSING = [t for t in GUI_TOOLS if not shutil.which(t)]


@unittest.skipIf(GUI_MISSING, "needs %s (scripts/install-deps)" % ", ".join(GUI_MISSING))
class Gui(unittest.TestCase):
    """The real GUI, with TAPO's debug log as the witness of what it
    rendered."""

    def setUp(self):
        if not os.path.exists(REAL):
            self.skipTest("no shared captures")
        import gui_screenshots
        self.gui = gui_screenshots.Gui(tempfile.mkdtemp(prefix="tapo-gui-consistency-"))
        shutil.copy(REAL, self.gui.tmp)
        os.chmod(os.path.join(self.gui.tmp, os.path.basename(REAL)), 0o644)
        self.log = os.path.join(self.gui.runtime, "tapo.log")

    def tearDown(self):
        self.gui.close()
        shutil.rmtree(self.gui.out_dir, ignore_errors=True)

    def renders(self):
        with open(self.log) as f:
            return [(int(m.group(1)), m.group(2), m.group(3)) for m in RENDER.finditer(f.read())]

    def open(self, *args):
        return self.gui.open(os.path.basename(REAL), "--log-debug", "TAPO", "--log-file", self.log, *args)

    def check(self, renders, expected):
        self.assertTrue(renders, "the GUI rendered no stall")
        self.assertEqual([r for r in renders if r[2] != "final"], [], "the GUI rendered one-pass verdicts")
        for frame, cause, _ in renders:
            self.assertEqual(expected.get(frame), cause, "frame %d" % frame)

    def test_profile_and_filter_from_the_start(self):
        expected = final_stalls(REAL)
        main = self.open("-C", "TAPO", "-Y", "tapo.stall")
        # Select the first rows of the filtered list: their trees render too.
        for row in range(3):
            self.gui.click(300, 118 + 18 * row)
        renders = self.renders()
        self.check(renders, expected)
        # Loading renders every frame once: the stalls shown are the final ones.
        self.assertEqual({frame for frame, _, _ in renders}, set(expected))
        self.assertTrue(main)

    def test_statistics_asked_after_loading(self):
        expected = final_stalls(REAL)
        self.open()
        import gui_screenshots
        self.gui.click(*gui_screenshots.STATISTICS_MENU)
        self.gui.keys("Up", "Return")
        self.gui.wait_window("TCP Stalls (TAPO)")
        renders = self.renders()
        self.check(renders, expected)
        self.assertEqual({frame for frame, _, _ in renders}, set(expected))


if __name__ == "__main__":
    unittest.main()
