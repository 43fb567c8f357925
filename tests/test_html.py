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
import report_captures
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
    page.dom = proc.stdout
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return page, console


def render_at(path, width):
    """The page as Chromium built it in a window of that width."""
    proc = chromium("--window-size=%d,1200" % width, "--dump-dom", "file://" + path)
    page = Page()
    page.feed(proc.stdout)
    return page, proc.stdout


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
        # At 1600 pixels both sets' tables fit their half, hints included.
        wide, _ = render_at(path, 1600)
        self.assertEqual(wide.body.get("data-overflowing"), "0", "a table is cut at 1600 pixels")
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
        # The timeline lists connections in the report's order (most to act
        # on first), its first rows the report's worst flows.
        rows = ["%s:%d" % (r["file"], r["first_frame"]) for r in data["timeline"]["rows"]]
        worst = ["%s:%d" % (f["file"], f["first_frame"]) for f in data["report"]["worst_flows"]]
        self.assertEqual(rows[:len(worst)], worst)

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



# The axes of the page's charts that are scales of numbers, not of categories.
LINEAR_AXES = {"timeline": ("x",), "sequence": ("x", "y"), "time-by-cause": ("y",), "stalls-by-cause": ("y",),
               "compare-causes": ("y",), "compare-phases": ("y",), "compare-ratio": ("x", "y")}


def report_json(*captures):
    return json.loads(tapo("--quiet", "--report", "json", *captures).stdout)


def seconds_by_cause(ns_by_key):
    """{"1.7 undetermined": ns} to {"undetermined": s}, causes of one name added."""
    out = collections.Counter()
    for key, ns in ns_by_key.items():
        out[key.split(" ", 1)[1]] += ns / 1e9
    return out


@unittest.skipIf(not CHROMIUM, "needs chromium (scripts/install-deps)")
class AgreesWithTheReport(unittest.TestCase):
    """Every total on the page is the one tapo --report json gives (issue
    28), axes never run below zero, and the labels of a constructed capture
    name the right machine and zoom to the data."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="tapo-html-totals-")
        cls.constructed = os.path.join(cls.tmp, "constructed.pcap")
        report_captures.all_three(cls.constructed)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def page(self, name, *captures):
        path = os.path.join(self.tmp, name)
        tapo("--quiet", "--html", path, *captures)
        page, console = render(path)
        self.assertEqual(console, [], "console messages")
        self.assertEqual(page.body.get("data-ready"), "1")
        return page

    def captures(self):
        names = [os.path.join(CAPTURES, "mixed-web.pcap"), os.path.join(CAPTURES, "upload-tail.pcap"),
                 self.constructed]
        for real in ("OISF__suricata-verify__tests__filestore-5408__input.pcap", "ntop__nDPI__reddit.pcap"):
            if os.path.exists(os.path.join(ts.REAL_CAPTURES, real)):
                names.append(os.path.join(ts.REAL_CAPTURES, real))
        return names

    def test_every_total_agrees_with_tapo_report_json(self):
        for pcap in self.captures():
            with self.subTest(capture=os.path.basename(pcap)):
                page = self.page(os.path.basename(pcap) + ".html", pcap)
                r = report_json(pcap)
                stalls = next(n for n in r["breakdown"]["children"] if n["name"] == "Stalls")
                summary = page.having("data-summary")[0]
                self.assertEqual(int(summary["data-packets"]), r["packets"])
                self.assertEqual(int(summary["data-connections"]), r["conversations"])
                self.assertEqual(int(summary["data-stalled-connections"]), r["stalled_conversations"])
                self.assertEqual(int(summary["data-stalls"]), stalls["total"])
                self.assertAlmostEqual(float(summary["data-stalled-s"]), r["stalled_time_ns"] / 1e9, places=6)
                idle = r["stalled_time_by_cause_ns"].get("5 client-idle", 0) / 1e9
                self.assertAlmostEqual(float(summary["data-idle-s"]), idle, places=6)
                # By cause: the counts and times, adding up to the total.
                counts = collections.Counter()
                def leaves(n):
                    if not n["children"]:
                        counts[n["name"]] += n["total"]
                    for c in n["children"]:
                        leaves(c)
                leaves(stalls)
                times = seconds_by_cause(r["stalled_time_by_cause_ns"])
                rows = {a["data-cause"]: a for a in page.having("data-cause")}
                self.assertEqual({c: int(a["data-stalls"]) for c, a in rows.items()}, dict(counts))
                for cause, a in rows.items():
                    self.assertAlmostEqual(float(a["data-time-s"]), times[cause], places=6, msg=cause)
                self.assertAlmostEqual(sum(float(a["data-time-s"]) for a in rows.values()),
                                       float(summary["data-stalled-s"]), places=5)
                saved = {a["data-mitigation"]: float(a["data-saved-s"]) for a in page.having("data-mitigation")}
                self.assertEqual(set(saved), set(r["whatif_saving_ns"]))
                for name, ns in r["whatif_saving_ns"].items():
                    self.assertAlmostEqual(saved[name], ns / 1e9, places=6)
                # The connections, in the report's order, with its numbers.
                headings = page.having("data-flow")
                worst = r["worst_flows"][:WORST]
                self.assertEqual([a["data-flow"] for a in headings],
                                 ["%s:%d" % (f["file"], f["first_frame"]) for f in worst])
                for a, f in zip(headings, worst):
                    self.assertAlmostEqual(float(a["data-stalled-s"]), f["stalled_time_s"], places=6)
                    self.assertAlmostEqual(float(a["data-idle-s"]), f["idle_time_s"], places=6)
                    self.assertAlmostEqual(float(a["data-duration-s"]), f["duration_s"], places=6)
                # One connection: the summary's stalled time is its heading's.
                if r["stalled_conversations"] == 1:
                    self.assertAlmostEqual(float(summary["data-stalled-s"]), worst[0]["stalled_time_s"], places=6)

    def test_no_axis_has_a_negative_range(self):
        for pcap in self.captures():
            with self.subTest(capture=os.path.basename(pcap)):
                page = self.page(os.path.basename(pcap) + ".axes.html", pcap)
                canvases = [a for a in page.having("data-chart") if "data-x-min" in a]
                self.assertGreater(len(canvases), 2)
                for a in canvases:
                    for axis in ("x", "y"):
                        if "data-%s-min" % axis not in a:
                            continue
                        low, high = float(a["data-%s-min" % axis]), float(a["data-%s-max" % axis])
                        self.assertGreaterEqual(low, 0, (a["data-chart"], axis))
                        # (a category axis of one bar spans 0 to 0)
                        if axis in LINEAR_AXES.get(a["data-chart"], ()):
                            self.assertGreater(high, low, (a["data-chart"], axis))

    def test_the_labels_of_a_constructed_capture(self):
        path = os.path.join(self.tmp, "labels.html")
        tapo("--quiet", "--html", path, self.constructed)
        data = embedded_data(path)["sets"][0]
        page, _ = render(path)
        by_client = {w["flow"]["client"]: w for w in data["worst"]}
        # The upload's idle close names the client, not the analysed receiver.
        upload = by_client["10.0.0.2:41000"]
        idle = [s for s in upload["stalls"] if s["cause"] == "client-idle"]
        self.assertTrue(idle)
        for s in idle:
            self.assertTrue(s["hint"].startswith("The client 10.0.0.2:41000 "), s["hint"])
        self.assertRegex(page.dom, r"10\.0\.0\.2:41000 -&gt; 10\.0\.0\.1:8080: \d+\.\d{3} s stalled "
                                   r"\(\d+\.\d{3} s of it idle\)")
        # The timeouts come first, the idle upload last: what to act on first.
        order = [w["flow"]["client"] for w in data["worst"]]
        self.assertEqual(order, ["10.0.0.2:41001", "10.0.0.2:41002", "10.0.0.2:41000"])
        # A 0.3 s transfer and a 9 s chain of timeouts: the axis is broken at
        # the long gaps, and the transfer gets most of its width.
        charts = [a for a in page.having("data-chart", "sequence")]
        self.assertEqual(len(charts), 3)
        chain = charts[0]
        self.assertGreaterEqual(int(chain["data-breaks"]), 3)
        self.assertGreater(0.36 / float(chain["data-x-max"]), 0.5, "the transfer is squeezed")
        # The connection without data: a byte axis from 0 up.
        nodata = charts[1]
        self.assertEqual(float(nodata["data-y-min"]), 0)
        self.assertGreaterEqual(float(nodata["data-y-max"]), 1)

if __name__ == "__main__":
    unittest.main()
