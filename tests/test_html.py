"""The HTML incident report (tapo --html, docs/batch.md "The HTML report")
in a real browser, headless Chromium: the page draws without a console
message, and what it shows is read back from the page and checked against
the plugin's own fields on the same captures (tshark, two passes): the
stalls in all and by cause, the episodes, the frames of the worst
connections' verdicts.  A screenshot is not blank and shows each cause of
the capture in the colour the TAPO profile gives it.  --compare puts two
capture sets side by side; large inputs stay within the documented bounds
(a timeline of at most 100 connections, graphs of at most 4000 points that
keep every frame a verdict names); sequence numbers are unwrapped across
2^32; a report works offline (no external resource)."""

import collections
import html.parser
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import hostile
import pcapfile
import tshark_runner as ts
import batch_compare

CAPTURES = os.path.join(ts.ROOT, "test-captures")
CHROMIUM = shutil.which("chromium")
CONVERT = shutil.which("convert")
TIMELINE_MAX = 100          # TAPO_HTML_TIMELINE_CONNECTIONS (batch/html.h)
WORST = 5                   # TAPO_HTML_WORST
POINTS = 4000               # TAPO_HTML_POINTS
ROW_STALLS = 100            # TAPO_HTML_ROW_STALLS
VERDICTS = 200              # TAPO_HTML_VERDICTS


tapo = batch_compare.tapo


class Page(html.parser.HTMLParser):
    """The elements of the page that carry data-* attributes."""

    def __init__(self):
        super().__init__()
        self.body = {}
        self.elements = []          # (tag, attrs)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "body":
            self.body = attrs
        if any(k.startswith("data-") for k in attrs):
            self.elements.append((tag, attrs))

    def having(self, name, value=None):
        return [a for _, a in self.elements if name in a and (value is None or a[name] == value)]


def chromium(*args):
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
                           "--v=0"] + list(args), capture_output=True, text=True, timeout=180)


def render(path):
    """The page as Chromium built it, and the console's messages."""
    proc = chromium("--dump-dom", "file://" + path)
    page = Page()
    page.feed(proc.stdout)
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return page, console


def embedded_data(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"const TAPO = (\{.*?\});\n</script>", text, re.S)
    return json.loads(m.group(1))


def profile_colours():
    """Each cause's colour in the TAPO profile's I/O graph."""
    colours = {}
    with open(os.path.join(ts.ROOT, "profiles", "TAPO", "io_graphs")) as f:
        for line in f:
            m = re.match(r'"Enabled","([a-z-]+)",.*?"(#[0-9A-Fa-f]{6})"', line)
            if m:
                colours[m.group(1)] = m.group(2)
    return colours


def pixels_of(image, colour):
    out = subprocess.run([CONVERT, image, "-fill", "black", "+opaque", colour, "-fill", "white",
                          "-opaque", colour, "-format", "%[fx:round(mean*w*h)]", "info:"],
                         capture_output=True, text=True, check=True).stdout
    return int(out)


def plugin_stalls(pcap):
    """(frame, cause, duration, stream, episode) of every stall, as the plugin says it (two passes)."""
    rows = ts.stall_fields(pcap, ["frame.number", "tapo.stall.cause", "tapo.stall.duration", "tcp.stream",
                                  "tapo.episode"])
    return [(int(f), c, float(d), int(s), e) for f, c, d, s, e in rows]


@unittest.skipIf(not CHROMIUM or not CONVERT, "needs chromium and imagemagick (scripts/install-deps)")
class HtmlReport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="tapo-html-test-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def report(self, name, *args):
        path = os.path.join(self.tmp, name)
        tapo("--quiet", "--html", path, *args)
        return path

    def assert_drawn(self, page, console):
        self.assertEqual(console, [], "console messages")
        self.assertEqual(page.body.get("data-errors"), "0")
        self.assertEqual(page.body.get("data-ready"), "1", "the page's script did not finish")

    def test_reports_of_corpus_captures_show_the_plugins_stalls(self):
        for name in ("mixed-web.pcap", "f-double.pcap", "zero-window.pcap", "ipv6-tail.pcap",
                     "syn-retry.pcap"):
            pcap = os.path.join(CAPTURES, name)
            with self.subTest(capture=name):
                stalls = plugin_stalls(pcap)
                page, console = render(self.report(name + ".html", pcap))
                self.assert_drawn(page, console)
                self.assertEqual(page.body["data-stalls"], str(len(stalls)))
                by_cause = collections.Counter(c for _, c, _, _, _ in stalls)
                shown = {a["data-cause"]: int(a["data-stalls"]) for a in page.having("data-cause")}
                self.assertEqual(shown, dict(by_cause))
                charts = collections.Counter(a["data-chart"] for a in page.having("data-chart"))
                for chart in ("time-by-cause", "stalls-by-cause", "phase", "confidence", "timeline"):
                    self.assertEqual(charts[chart], 1, chart)
                streams = {s for _, _, _, s, _ in stalls}
                self.assertEqual(charts["sequence"], min(WORST, len(streams)))
                # Each worst connection's verdicts: stalls the plugin found.
                frames = {f for f, _, _, _, _ in stalls}
                shown_frames = {int(a["data-frame"]) for a in page.having("data-frame")}
                self.assertTrue(shown_frames and shown_frames <= frames, shown_frames - frames)
                episodes = {e for _, _, _, _, e in stalls if e}
                self.assertEqual(len(page.having("data-episode")), len(episodes))

    def test_screenshot_shows_the_causes_in_the_profiles_colours(self):
        colours = profile_colours()
        for name in ("mixed-web.pcap", "f-double.pcap"):
            pcap = os.path.join(CAPTURES, name)
            with self.subTest(capture=name):
                png = os.path.join(self.tmp, name + ".png")
                proc = chromium("--hide-scrollbars", "--window-size=1280,2400", "--screenshot=" + png,
                                "file://" + self.report(name + ".html", pcap))
                self.assertTrue(os.path.exists(png), proc.stderr[-2000:])
                spread = float(subprocess.run(["identify", "-format", "%[fx:standard_deviation]", png],
                                              capture_output=True, text=True, check=True).stdout)
                self.assertGreater(spread, 0.05, "the screenshot looks blank")
                for cause in {c for _, c, _, _, _ in plugin_stalls(pcap)}:
                    self.assertGreater(pixels_of(png, colours[cause]), 100, "no %s on the screen" % cause)

    def test_before_and_after(self):
        before = [os.path.join(CAPTURES, n) for n in ("tail-paper.pcap", "t-double-paper.pcap")]
        after = [os.path.join(CAPTURES, n) for n in ("tail-tlp.pcap", "t-double-tlp.pcap")]
        path = self.report("compare.html", "--compare", *before, "--", *after)
        page, console = render(path)
        self.assert_drawn(page, console)
        counts = [sum(len(plugin_stalls(p)) for p in side) for side in (before, after)]
        self.assertEqual(page.body["data-stalls"], "%d,%d" % tuple(counts))
        charts = {a["data-chart"] for a in page.having("data-chart")}
        self.assertLessEqual({"compare-causes", "compare-phases", "compare-ratio"}, charts)
        times = [sum(d for p in side for _, _, d, _, _ in plugin_stalls(p)) for side in (before, after)]
        summary = page.having("data-compare-summary")[0]["data-before-s"], \
            page.having("data-compare-summary")[0]["data-after-s"]
        for shown, want in zip(summary, times):
            self.assertAlmostEqual(float(shown), want, delta=0.002)

    def test_many_connections_stay_within_the_bounds(self):
        pcap = os.path.join(self.tmp, "many.pcap")
        subprocess.run([os.path.join(ts.ROOT, "scripts", "make_bench_capture.py"), pcap, "40000"], check=True,
                       stdout=subprocess.DEVNULL)
        path = self.report("many.html", pcap)
        page, console = render(path)
        self.assert_drawn(page, console)
        data = embedded_data(path)["sets"][0]
        self.assertGreater(data["timeline"]["connections"], TIMELINE_MAX)
        self.assertEqual(len(data["timeline"]["rows"]), TIMELINE_MAX)
        self.assertEqual(len(data["worst"]), WORST)
        self.assertLess(os.path.getsize(path), 3 * 2**20, "past the documented bound (docs/batch.md)")
        rows = [r["stalled_s"] for r in data["timeline"]["rows"]]
        self.assertEqual(rows, sorted(rows, reverse=True), "the most stalled connections first")

    def test_a_connection_with_many_stalls_lists_its_longest(self):
        """300 requests on one connection, each answered after a server
        think time of 0.2 to 0.5 s, the next asked 0.25 s later."""
        conn, recs, t, seq_c, seq_s = pcapfile.Connection(), [], 0.0, 1, 1
        recs += conn.handshake(t)
        t = 0.1
        for i in range(300):
            recs.append((t, conn.packet(0, seq_c, seq_s, pcapfile.ACK | pcapfile.PSH, payload=b"GET /\r\n")))
            seq_c += 7
            t += 0.2 + (i % 7) * 0.05
            part, seq_s = hostile.response(conn, t, seq_s, 2, seq_c)
            recs += part
            t += 0.3
        pcap = os.path.join(self.tmp, "many-stalls.pcap")
        pcapfile.write_pcap(pcap, sorted(recs, key=lambda r: r[0]))
        stalls = plugin_stalls(pcap)
        self.assertGreater(len(stalls), VERDICTS)
        path = self.report("many-stalls.html", pcap)
        page, console = render(path)
        self.assert_drawn(page, console)
        data = embedded_data(path)["sets"][0]
        worst = data["worst"][0]
        self.assertEqual(len(worst["stalls"]), VERDICTS)
        self.assertEqual(worst["stalls_left_out"], len(stalls) - VERDICTS)
        shortest_listed = min(s["end"] - s["start"] for s in worst["stalls"])
        longest = sorted((d for _, _, d, _, _ in stalls), reverse=True)
        self.assertAlmostEqual(shortest_listed, longest[VERDICTS - 1], delta=1e-5)
        row = data["timeline"]["rows"][0]
        self.assertEqual(len(row["stalls"]), ROW_STALLS)
        self.assertEqual(row["stalls_left_out"], len(stalls) - ROW_STALLS)

    def test_a_long_connection_is_thinned_but_keeps_its_verdicts_frames(self):
        pcap = os.path.join(self.tmp, "tiny.pcap")
        pcapfile.write_pcap(pcap, hostile.tiny_segments(20000))
        path = self.report("tiny.html", pcap)
        page, console = render(path)
        self.assert_drawn(page, console)
        worst = embedded_data(path)["sets"][0]["worst"][0]
        named = {s["frame"] for s in worst["stalls"]}
        named |= {s[k] for s in worst["stalls"] for k in ("orig_frame", "prev_retrans_frame",
                                                           "loss_signal_frame", "dsack_frame") if k in s}
        frames = [p[3] for p in worst["points"]]
        self.assertLessEqual(len(frames), POINTS + len(named))
        self.assertGreater(len(frames), POINTS // 2, "thinned too far")
        self.assertLessEqual(named, set(frames))
        self.assertEqual(frames, sorted(frames))

    def test_sequence_numbers_are_unwrapped(self):
        pcap = os.path.join(self.tmp, "wraps.pcap")
        pcapfile.write_pcap(pcap, hostile.sequence_wraps(wraps=1))
        path = self.report("wraps.html", pcap)
        worst = embedded_data(path)["sets"][0]["worst"][0]
        data = [p[1] for p in worst["points"] if p[2] == 0]
        self.assertGreaterEqual(min(data), 0)
        self.assertGreater(max(data), 2**32 - 2 * 65535, "the graph stopped at the wrap")
        acks = [p[1] for p in worst["points"] if p[2] == 1]
        self.assertEqual(acks, sorted(acks))

    def test_the_page_needs_no_network(self):
        path = self.report("offline.html", os.path.join(CAPTURES, "f-double.pcap"))
        with open(path, encoding="utf-8") as f:
            text = f.read()
        self.assertNotRegex(text, r"<script[^>]+src=|<link[^>]+href=|<img[^>]+src=|@import")
        self.assertIn("Chart.js v3", text)

    def test_from_a_pipe_the_page_has_no_graphs_but_says_why(self):
        path = os.path.join(self.tmp, "pipe.html")
        with open(os.path.join(CAPTURES, "mixed-web.pcap"), "rb") as f:
            subprocess.run([batch_compare.batch_binary(), "--quiet", "--html", path, "-"], stdin=f, check=True,
                           capture_output=True)
        page, console = render(path)
        self.assert_drawn(page, console)
        self.assertNotIn("sequence", {a["data-chart"] for a in page.having("data-chart")})
        self.assertEqual(page.body["data-stalls"], str(len(plugin_stalls(os.path.join(CAPTURES, "mixed-web.pcap")))))

    def test_a_missing_capture_is_named_and_the_report_still_written(self):
        path = os.path.join(self.tmp, "missing.html")
        proc = subprocess.run([batch_compare.batch_binary(), "--quiet", "--html", path, "--compare",
                               os.path.join(CAPTURES, "f-double.pcap"), "--", "/nonexistent.pcap"],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("/nonexistent.pcap", proc.stderr)
        page, console = render(path)
        self.assert_drawn(page, console)
        self.assertEqual(page.body["data-stalls"], "%d,0" % len(plugin_stalls(os.path.join(CAPTURES, "f-double.pcap"))))

    def test_usage_errors_are_named(self):
        pcap = os.path.join(CAPTURES, "f-double.pcap")
        for args, message in (
                (["--compare", pcap, "--", pcap], "--compare needs --html"),
                (["--html", "x.html", "--compare", pcap], "both sides"),
                (["--html", os.path.join(self.tmp, "y.html"), "--chart-js", "/nonexistent.js", pcap], "Chart.js"),
                (["--html", "/nonexistent/dir/z.html", pcap], "z.html"),
                (["--html", os.path.join(self.tmp, "p.html"), "--compare", pcap, "--", "-"], "not pipes")):
            proc = subprocess.run([batch_compare.batch_binary(), "--quiet"] + args, capture_output=True, text=True)
            with self.subTest(args=args):
                self.assertEqual(proc.returncode, 1, proc.stderr)
                self.assertIn(message, proc.stderr)


if __name__ == "__main__":
    unittest.main()
