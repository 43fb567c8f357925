"""tapo as a monitoring service (issue 29), without the lab:

- --metrics on captures and on a pipe: the Prometheus text format passes
  `promtool check metrics`, and its counts are the report's (stalls and
  stalled time by cause, category, phase and confidence, the duration
  histogram, packets, connections, rows), the server labels bounded;
  --metrics-linger keeps the endpoint for a last scrape and a signal ends it;
- episodes found as stalls stream equal those of the whole capture;
- stall rows rotated by size and by time, each file whole under its final
  name, none lost; an unfinished segment of an earlier run completed;
  SIGHUP reopens a file that logrotate moved;
- a full disk (a small tmpfs, as root): every row before the disk filled is
  in the files, whole, in order; the others are counted in
  tapo_output_rows_lost_total and said on stderr, and the exit status is 1;
- --config FILE and the shipped tapo.conf; the systemd unit passes
  `systemd-analyze verify`; as root, tapo captures as an unprivileged user
  with CAP_NET_RAW alone (the unit's), and says what is missing without it.
"""

import csv
import glob
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest

import monitor
import tshark_runner as ts

CAPTURES = os.path.join(ts.ROOT, "test-captures")
TAPO = monitor.TAPO
CORPUS = [os.path.join(CAPTURES, n + ".pcap") for n in (
    "mixed-web", "mixed-bufferbloat", "zero-window", "f-double", "t-double-paper", "syn-retry", "undetermined",
    "ack-delay", "ipv6-tail", "small-rwnd", "data-unavailable")]
MIXED = os.path.join(CAPTURES, "mixed-web.pcap")
SEGMENT = re.compile(r"^stalls-\d{8}T\d{6}\.\d{3}Z\.csv$")


def pcap_records(path):
    """A classic pcap's header and its records (bytes each)."""
    with open(path, "rb") as f:
        data = f.read()
    pos, records = 24, []
    while pos < len(data):
        incl = int.from_bytes(data[pos + 8:pos + 12], "little")
        records.append(data[pos:pos + 16 + incl])
        pos += 16 + incl
    return data[:24], records


def csv_rows(text):
    """The rows of a CSV stall file, after its header, as lists."""
    rows = list(csv.reader(io.StringIO(text)))
    return rows[1:] if rows and rows[0] and rows[0][0] == "file" else rows


def reference_rows(*args, stdin=None):
    """The stall rows of one worker (rows keep their order)."""
    p = subprocess.run([TAPO, "-q", "-j", "1"] + list(args), input=stdin, capture_output=True, check=True)
    return csv_rows(p.stdout.decode())


def sorted_segments(folder):
    return sorted(n for n in os.listdir(folder) if n.startswith("stalls-"))


class MetricsOfCaptures(unittest.TestCase):
    """Every count of the endpoint against tapo --report json on the same captures."""

    @classmethod
    def setUpClass(cls):
        cls.tapo = monitor.Run(["-q", "-j", "2", "--metrics", "127.0.0.1:0", "--metrics-linger", "120",
                               "-w", os.devnull] + CORPUS)
        cls.text = cls.tapo.wait_metrics(lambda s: monitor.total(s, "tapo_capture_running") == 0)
        cls.samples = monitor.parse_metrics(cls.text)
        cls.report = monitor.report_json(*CORPUS)
        started = time.monotonic()
        cls.status = cls.tapo.finish(signal.SIGTERM)
        cls.linger_end_s = time.monotonic() - started

    def test_promtool_accepts_the_format(self):
        status, said = monitor.promtool_check(self.text)
        self.assertEqual((status, said), (0, ""))
        # Counters end in _total, durations in _seconds, and every family has HELP and TYPE.
        families = re.findall(r"^# TYPE (\S+) (\S+)$", self.text, re.M)
        self.assertGreater(len(families), 20)
        for name, kind in families:
            if kind == "counter":
                self.assertTrue(name.endswith("_total"), name)
            self.assertIn("# HELP %s " % name, self.text)

    def test_stalls_by_cause_and_category_are_the_report_s(self):
        stalls = monitor.by_labels(self.samples, "tapo_stalls_total", "cause", "category")
        expected = monitor.report_stalls(self.report)
        self.assertGreater(sum(expected.values()), 60)
        self.assertGreaterEqual(len(expected), 6)
        self.assertEqual(stalls, expected)
        # Every cause of the vocabulary is there from the start.
        causes = {dict(l)["cause"] for (n, l) in self.samples if n == "tapo_stalls_total"}
        self.assertEqual(len(causes), 14)   # "undetermined" twice, in two categories

    def test_stalled_time_phases_and_confidences_are_the_report_s(self):
        nodes = {n["name"]: n for n in self.report["breakdown"]["children"]}
        n_stalls = sum(monitor.report_stalls(self.report).values())
        stalled_s = monitor.total(self.samples, "tapo_stalled_seconds_total")
        self.assertAlmostEqual(stalled_s * 1000, nodes["Stalled time (ms)"]["total"], delta=0.5 * n_stalls)
        for label, node in (("phase", "Stalls by phase"), ("confidence", "Stalls by confidence")):
            got = {k[0]: v for k, v in monitor.by_labels(self.samples, "tapo_stalls_total", label).items()}
            self.assertEqual(got, {c["name"]: c["total"] for c in nodes[node]["children"] if c["total"]}, label)

    def test_the_duration_histogram(self):
        counts = monitor.by_labels(self.samples, "tapo_stall_duration_seconds_count", "cause", "category")
        self.assertEqual(counts, monitor.report_stalls(self.report))
        for (cause, category), count in counts.items():
            buckets = sorted(((float(dict(l)["le"]), v) for (n, l), v in self.samples.items()
                              if n == "tapo_stall_duration_seconds_bucket" and dict(l)["cause"] == cause
                              and dict(l)["category"] == category), key=lambda b: b[0])
            values = [v for _, v in buckets]
            self.assertEqual(values, sorted(values))
            self.assertEqual(buckets[-1], (float("inf"), count))
            self.assertAlmostEqual(monitor.total(self.samples, "tapo_stall_duration_seconds_sum", cause=cause,
                                                 category=category),
                                   monitor.total(self.samples, "tapo_stalled_seconds_total", cause=cause,
                                                 category=category), places=6)

    def test_packets_connections_and_rows(self):
        s = self.samples
        self.assertEqual(monitor.total(s, "tapo_packets_total"), self.report["packets"])
        self.assertEqual(monitor.total(s, "tapo_tcp_packets_total"), self.report["tcp_packets"])
        self.assertEqual(monitor.total(s, "tapo_connections_total"), self.report["conversations"])
        self.assertEqual(monitor.total(s, "tapo_connections_open"), 0)
        self.assertEqual(monitor.total(s, "tapo_output_rows_total", output="stalls"),
                         sum(monitor.report_stalls(self.report).values()))
        self.assertEqual(monitor.total(s, "tapo_output_rows_lost_total"), 0)
        # Files, not a live interface: no drop counters.
        self.assertNotIn("tapo_kernel_dropped_packets_total", self.text)

    def test_servers_have_labels_of_their_own(self):
        servers = monitor.by_labels(self.samples, "tapo_server_stalls_total", "server")
        self.assertEqual(sum(servers.values()), sum(monitor.report_stalls(self.report).values()))
        self.assertEqual(set(k[0] for k in servers), {"10.77.0.1:8080", "[fd77::1]:8080"})

    def test_linger_ends_on_a_signal(self):
        self.assertEqual(self.status, 0, self.tapo.stderr)
        self.assertLess(self.linger_end_s, 10)


class BoundedServerLabels(unittest.TestCase):
    def test_one_label_and_other(self):
        run = monitor.Run(["-q", "--metrics", "127.0.0.1:0", "--metrics-servers", "1", "--metrics-linger", "60",
                           "-w", os.devnull] + CORPUS)
        s = monitor.parse_metrics(run.wait_metrics(lambda s: monitor.total(s, "tapo_capture_running") == 0))
        run.finish(signal.SIGINT)
        servers = monitor.by_labels(s, "tapo_server_stalls_total", "server")
        self.assertEqual(len([n for (n, l) in s if n == "tapo_server_stalls_total"]), 2)
        self.assertIn(("other",), servers)
        self.assertEqual(sum(servers.values()), monitor.total(s, "tapo_stalls_total"))

    def test_a_bad_address_is_a_clear_error(self):
        for address, says in (("127.0.0.1", "give an address and a port"), ("127.0.0.1:99999", "give an address")):
            with self.subTest(address=address):
                p = subprocess.run([TAPO, "-q", "--metrics", address, MIXED], capture_output=True, text=True)
                self.assertEqual(p.returncode, 1)
                self.assertIn(says, p.stderr)
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            p = subprocess.run([TAPO, "-q", "--metrics", "127.0.0.1:%d" % taken.getsockname()[1], MIXED],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 1)
            self.assertIn("already in use", p.stderr)

    def test_the_endpoint_answers_only_what_it_serves(self):
        run = monitor.Run(["-q", "--metrics", "127.0.0.1:0", "--metrics-linger", "60", "-w", os.devnull, MIXED])
        url = run.wait_url()
        base = url[:-len("/metrics")]
        host, port = base[len("http://"):].rsplit(":", 1)
        try:
            for path, status in (("/nope", 404), ("/", 200)):
                p = subprocess.run(["curl", "-s", "-o", os.devnull, "-w", "%{http_code}", base + path],
                                   capture_output=True, text=True)
                self.assertEqual(p.stdout, str(status))
            p = subprocess.run(["curl", "-s", "-X", "POST", "-o", os.devnull, "-w", "%{http_code}", url],
                               capture_output=True, text=True)
            self.assertEqual(p.stdout, "405")
            with socket.create_connection((host, int(port)), timeout=10) as c:
                c.sendall(b"garbage\r\n\r\n")
                self.assertTrue(c.recv(100).startswith(b"HTTP/1.1 400"))
            # A client that sends nothing is dropped; the endpoint still answers others meanwhile.
            with socket.create_connection((host, int(port)), timeout=10):
                self.assertIn("tapo_stalls_total", run.scrape())
        finally:
            run.finish(signal.SIGTERM)


class MetricsFromAPipe(unittest.TestCase):
    def test_stalls_are_counted_as_their_rows_are_written(self):
        header, records = pcap_records(MIXED)
        half = len(records) // 2
        run = monitor.Run(["-q", "--settle", "0", "-F", "jsonl", "--metrics", "127.0.0.1:0",
                           "--metrics-linger", "60", "-"], stdin=subprocess.PIPE)
        run.wait_url()
        run.proc.stdin.write(header + b"".join(records[:half]))
        run.proc.stdin.flush()
        text = run.wait_metrics(lambda s: monitor.total(s, "tapo_output_rows_total", output="stalls") >= 3)
        s = monitor.parse_metrics(text)
        self.assertEqual(monitor.total(s, "tapo_capture_running"), 1)
        rows_then = monitor.total(s, "tapo_output_rows_total", output="stalls")
        self.assertEqual(monitor.total(s, "tapo_stalls_total"), rows_then)
        run.proc.stdin.write(b"".join(records[half:]))
        run.proc.stdin.close()
        s = monitor.parse_metrics(run.wait_metrics(lambda s: monitor.total(s, "tapo_capture_running") == 0))
        run.finish(signal.SIGTERM)
        rows = [json.loads(l) for l in run.out]
        self.assertGreater(len(rows), rows_then)
        self.assertEqual(monitor.total(s, "tapo_stalls_total"), len(rows))
        self.assertEqual(monitor.total(s, "tapo_stalls_settling"), 0)
        causes = {}
        for r in rows:
            causes[r["tapo.stall.cause"]] = causes.get(r["tapo.stall.cause"], 0) + 1
        self.assertEqual({k[0]: v for k, v in monitor.by_labels(s, "tapo_stalls_total", "cause").items()}, causes)

    def test_episodes_found_as_stalls_stream_are_the_whole_capture_s(self):
        with open(MIXED, "rb") as f:
            data = f.read()
        run = monitor.Run(["-q", "-F", "jsonl", "--episodes", "/dev/stdout", "-w", os.devnull,
                           "--metrics", "127.0.0.1:0", "--metrics-linger", "60", "-"], stdin=subprocess.PIPE)
        run.wait_url()
        run.proc.stdin.write(data)
        run.proc.stdin.close()
        s = monitor.parse_metrics(run.wait_metrics(lambda s: monitor.total(s, "tapo_capture_running") == 0))
        run.finish(signal.SIGTERM)
        streamed = [json.loads(l) for l in run.out]
        whole = [json.loads(l) for l in subprocess.run(
            [TAPO, "-q", "-F", "jsonl", "--episodes", "/dev/stdout", "-w", os.devnull, MIXED],
            capture_output=True, text=True, check=True).stdout.splitlines()]
        self.assertEqual(len(whole), 1)
        key = lambda e: (e["tapo.episode.scope"], e["tapo.episode.connections"], e["stalls"],
                         e["tapo.episode.cause"], [m["frame"] for m in e["members"]])
        self.assertEqual([key(e) for e in streamed], [key(e) for e in whole])
        self.assertEqual(monitor.by_labels(s, "tapo_episodes_total", "scope", "cause"),
                         {("server", whole[0]["tapo.episode.cause"]): 1})


class Rotation(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="tapo-rotation-")
        self.path = os.path.join(self.dir, "stalls.csv")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def segments(self):
        names = sorted_segments(self.dir)
        for n in names:
            self.assertRegex(n, SEGMENT)
        out = []
        for n in names:
            with open(os.path.join(self.dir, n)) as f:
                text = f.read()
            self.assertTrue(text.startswith("file,frame.number,"), n)
            self.assertTrue(text.endswith("\n"), n)
            out.append((n, text))
        return out

    def test_by_size(self):
        run = monitor.Run(["-q", "-j", "1", "-w", self.path, "--rotate-size", "4k", "--metrics", "127.0.0.1:0",
                           "--metrics-linger", "60"] + CORPUS)
        s = monitor.parse_metrics(run.wait_metrics(lambda s: monitor.total(s, "tapo_capture_running") == 0))
        self.assertEqual(run.finish(signal.SIGTERM), 0, run.stderr)
        segments = self.segments()
        self.assertGreater(len(segments), 10)
        self.assertFalse(os.path.exists(self.path))
        self.assertEqual(glob.glob(os.path.join(self.dir, "*.part")), [])
        for name, text in segments:
            longest = max(len(line) + 1 for line in text.splitlines())
            self.assertLessEqual(len(text.encode()), 4096 + longest, name)
        rows = [r for _, text in segments for r in csv_rows(text)]
        self.assertEqual(rows, reference_rows(*CORPUS))
        self.assertEqual(monitor.total(s, "tapo_output_files_total", output="stalls"), len(segments))
        self.assertEqual(monitor.total(s, "tapo_output_rows_total", output="stalls"), len(rows))

    def test_by_time_from_a_pipe(self):
        header, records = pcap_records(MIXED)
        thirds = [records[:len(records) // 3], records[len(records) // 3:2 * len(records) // 3],
                  records[2 * len(records) // 3:]]
        p = subprocess.Popen([TAPO, "-q", "--settle", "0", "-w", self.path, "--rotate-interval", "1", "-"],
                             stdin=subprocess.PIPE, stderr=subprocess.PIPE)
        p.stdin.write(header)
        for part in thirds:
            p.stdin.write(b"".join(part))
            p.stdin.flush()
            time.sleep(1.5)
        p.stdin.close()
        self.assertEqual(p.wait(timeout=60), 0, p.stderr.read())
        p.stderr.close()
        segments = self.segments()
        self.assertGreaterEqual(len(segments), 2)
        rows = [r for _, text in segments for r in csv_rows(text)]
        with open(MIXED, "rb") as f:
            self.assertEqual(rows, reference_rows("--settle", "0", "-", stdin=f.read()))

    def test_an_unfinished_segment_of_an_earlier_run_is_completed(self):
        left = os.path.join(self.dir, "stalls-20200101T000000.000Z.csv.part")
        with open(left, "w") as f:
            f.write(subprocess.run([TAPO, "-q", os.path.join(CAPTURES, "f-double.pcap")], capture_output=True,
                                   text=True, check=True).stdout)
        p = subprocess.run([TAPO, "-q", "-w", self.path, "--rotate-size", "1M", MIXED], capture_output=True,
                           text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("completed 1 unfinished segment", p.stderr)
        self.assertTrue(os.path.exists(left[:-len(".part")]))
        self.assertEqual(len(self.segments()), 2)

    def test_rotation_needs_a_file(self):
        p = subprocess.run([TAPO, "-q", "--rotate-size", "1M", MIXED], capture_output=True, text=True)
        self.assertEqual(p.returncode, 1)
        self.assertIn("--stalls FILE", p.stderr)

    def test_sighup_reopens_a_file_logrotate_moved(self):
        header, records = pcap_records(MIXED)
        half = len(records) // 2
        run = monitor.Run(["-q", "--settle", "0", "-w", self.path, "-"], stdin=subprocess.PIPE)
        run.proc.stdin.write(header + b"".join(records[:half]))
        run.proc.stdin.flush()
        end = time.monotonic() + 20
        def rows_so_far():
            if not os.path.exists(self.path):
                return 0
            with open(self.path) as f:
                return len(csv_rows(f.read()))
        while time.monotonic() < end and rows_so_far() < 3:
            time.sleep(0.1)
        os.rename(self.path, self.path + ".1")
        run.proc.send_signal(signal.SIGHUP)
        run.proc.stdin.write(records[half])   # the reopening happens at the next frame
        run.proc.stdin.flush()
        end = time.monotonic() + 20
        while time.monotonic() < end and "outputs reopened" not in run.stderr:
            time.sleep(0.1)
        self.assertIn("outputs reopened", run.stderr)
        run.proc.stdin.write(b"".join(records[half + 1:]))
        run.proc.stdin.close()
        self.assertEqual(run.finish(), 0, run.stderr)
        with open(self.path + ".1") as f:
            before = csv_rows(f.read())
        with open(self.path) as f:
            text = f.read()
        self.assertTrue(text.startswith("file,frame.number,"))
        self.assertGreaterEqual(len(before), 3)
        with open(MIXED, "rb") as f:
            self.assertEqual(before + csv_rows(text), reference_rows("--settle", "0", "-", stdin=f.read()))


@unittest.skipUnless(os.geteuid() == 0, "a small filesystem to fill needs root (mount -t tmpfs)")
class FullDisk(unittest.TestCase):
    FREE = 16 * 1024                  # bytes left free on the small filesystem

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="tapo-full-")
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tapo-full", self.dir], check=True)
        st = os.statvfs(self.dir)
        with open(os.path.join(self.dir, "filler"), "wb") as f:
            f.write(b"\0" * (st.f_bavail * st.f_frsize - self.FREE))
        self.expected = reference_rows(*CORPUS)

    def tearDown(self):
        subprocess.run(["umount", self.dir], check=False)
        shutil.rmtree(self.dir, ignore_errors=True)

    def check(self, extra):
        path = os.path.join(self.dir, "stalls.csv")
        run = monitor.Run(["-q", "-j", "1", "-w", path, "--metrics", "127.0.0.1:0", "--metrics-linger", "60"] +
                          extra + CORPUS)
        s = monitor.parse_metrics(run.wait_metrics(lambda s: monitor.total(s, "tapo_capture_running") == 0))
        status = run.finish(signal.SIGTERM)
        written = monitor.total(s, "tapo_output_rows_total", output="stalls")
        lost = monitor.total(s, "tapo_output_rows_lost_total", output="stalls")
        self.assertGreater(written, 3)
        self.assertGreater(lost, 3)
        self.assertEqual(written + lost, len(self.expected))
        # A message when it happened, and at the end, and exit status 1.
        self.assertEqual(status, 1)
        self.assertIn("No space left on device: rows are lost (and counted)", run.stderr)
        self.assertRegex(run.stderr, r"No space left on device \(%d rows lost\)" % lost)
        # The files: whole rows, in order, every row before the first lost one.
        rows = []
        for name in sorted(n for n in os.listdir(self.dir) if n.startswith("stalls")):
            with open(os.path.join(self.dir, name)) as f:
                text = f.read()
            self.assertTrue(text == "" or text.endswith("\n"), name)
            rows.extend(csv_rows(text))
        self.assertEqual(len(rows), written)
        self.assertTrue(all(len(r) == len(self.expected[0]) for r in rows))
        it = iter(self.expected)
        self.assertTrue(all(r in it for r in rows), "the rows written are not the rows in order")
        first_lost = next(i for i, r in enumerate(self.expected) if i >= len(rows) or rows[i] != r)
        self.assertGreaterEqual(first_lost * 550, self.FREE - 4096 - 8192)
        return rows

    def test_one_file(self):
        self.check([])

    def test_segments(self):
        self.check(["--rotate-size", "4k"])
        self.assertEqual(glob.glob(os.path.join(self.dir, "*.part")), [])


class ConfigFile(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="tapo-config-")
        self.conf = os.path.join(self.dir, "tapo.conf")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def write(self, text):
        with open(self.conf, "w") as f:
            f.write(text)

    def test_settings_as_options_the_command_line_wins(self):
        out = os.path.join(self.dir, "stalls.jsonl")
        self.write("[tapo]\n# comment\nformat=jsonl\nstalls=%s\nquiet=true\npref=tapo.min_stall_ms:0;tapo.tau:3\n" % out)
        p = subprocess.run([TAPO, "--config", self.conf, MIXED], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out) as f:
            got = f.read()
        expected = subprocess.run([TAPO, "-q", "-F", "jsonl", "-o", "tapo.min_stall_ms:0", "-o", "tapo.tau:3", MIXED],
                                  capture_output=True, text=True, check=True).stdout
        self.assertEqual(got.replace(MIXED, ""), expected.replace(MIXED, ""))
        p = subprocess.run([TAPO, "--config=" + self.conf, "-F", "csv", MIXED], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out) as f:
            self.assertTrue(f.read().startswith("file,frame.number,"))

    def test_errors_name_the_file_and_the_setting(self):
        for text, says in (("[tapo]\nno-such-option=1\n", "no-such-option is no setting of tapo"),
                           ("[tapo]\nquiet=maybe\n", "quiet"),
                           ("[other]\nquiet=true\n", "[other]"),
                           ("not a key file\n", "tapo.conf")):
            with self.subTest(text=text):
                self.write(text)
                p = subprocess.run([TAPO, "--config", self.conf, MIXED], capture_output=True, text=True)
                self.assertEqual(p.returncode, 1)
                self.assertIn(self.conf, p.stderr)
                self.assertIn(says, p.stderr)
        p = subprocess.run([TAPO, "--config", os.path.join(self.dir, "missing.conf"), MIXED],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 1)
        self.assertIn("missing.conf", p.stderr)

    def test_the_shipped_configuration_is_valid(self):
        p = subprocess.run([TAPO, "--config", os.path.join(ts.ROOT, "batch", "tapo.conf"), "--version"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)


class Service(unittest.TestCase):
    def unit(self):
        with open(os.path.join(ts.BUILD, "batch", "tapo.service")) as f:
            return f.read()

    def test_the_unit(self):
        unit = self.unit()
        self.assertRegex(unit, r"(?m)^ExecStart=\S+/tapo --config /etc/tapo/tapo\.conf$")
        self.assertRegex(unit, r"(?m)^DynamicUser=yes$")
        self.assertRegex(unit, r"(?m)^CapabilityBoundingSet=CAP_NET_RAW$")
        self.assertRegex(unit, r"(?m)^AmbientCapabilities=CAP_NET_RAW$")
        self.assertRegex(unit, r"(?m)^NoNewPrivileges=yes$")
        self.assertRegex(unit, r"(?m)^WantedBy=multi-user.target$")
        self.assertRegex(unit, r"(?m)^ExecReload=/bin/kill -HUP \$MAINPID$")

    @unittest.skipUnless(shutil.which("systemd-analyze"), "systemd-analyze is missing")
    def test_systemd_analyze_verify(self):
        folder = tempfile.mkdtemp(prefix="tapo-unit-")
        try:
            path = os.path.join(folder, "tapo.service")
            with open(path, "w") as f:
                f.write(re.sub(r"(?m)^ExecStart=\S+", "ExecStart=" + TAPO, self.unit()))
            p = subprocess.run(["systemd-analyze", "verify", path], capture_output=True, text=True)
            self.assertEqual((p.returncode, p.stdout + p.stderr), (0, ""))
            # It can fail: a unit whose command is missing does not pass.
            with open(path, "w") as f:
                f.write(re.sub(r"(?m)^ExecStart=\S+", "ExecStart=/nonexistent/tapo", self.unit()))
            self.assertNotEqual(subprocess.run(["systemd-analyze", "verify", path], capture_output=True).returncode, 0)
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def tcp_on_loopback(stop):
    """Connections to a listener on the loopback until stop is set."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        while not stop.is_set():
            with socket.create_connection(server.getsockname()) as c:
                peer, _ = server.accept()
                c.sendall(b"x" * 1000)
                peer.recv(2000)
                peer.close()
            time.sleep(0.05)


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("setpriv"), "needs root and setpriv (util-linux)")
class CaptureCapabilityOnly(unittest.TestCase):
    """As the unit runs it: an unprivileged user with CAP_NET_RAW alone."""

    AS_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

    def test_cap_net_raw_is_enough(self):
        # The shipped configuration, with the interface, the endpoint and
        # the folder of the rows changed.
        folder = tempfile.mkdtemp(prefix="tapo-nobody-")
        os.chmod(folder, 0o777)
        self.addCleanup(shutil.rmtree, folder, True)
        stop = threading.Event()
        traffic = threading.Thread(target=tcp_on_loopback, args=(stop,), daemon=True)
        run = monitor.Run(["--config", os.path.join(ts.ROOT, "batch", "tapo.conf"), "-i", "lo",
                           "--metrics", "127.0.0.1:0", "--stalls", os.path.join(folder, "stalls.csv")],
                          wrap=self.AS_NOBODY + ["--inh-caps=-all,+net_raw", "--ambient-caps=-all,+net_raw",
                                                 "--bounding-set=-all,+net_raw"])
        try:
            run.wait_url()
            traffic.start()
            s = monitor.parse_metrics(run.wait_metrics(lambda s: monitor.total(s, "tapo_tcp_packets_total") > 10))
            self.assertEqual(monitor.total(s, "tapo_capture_running"), 1)
            self.assertEqual(monitor.total(s, "tapo_memory_limit_bytes"), 256 << 20)
            self.assertIn("tapo_kernel_dropped_packets_total", run.scrape())
        finally:
            stop.set()
            status = run.finish(signal.SIGTERM)
        self.assertEqual(status, 0, run.stderr)

    def test_without_it_a_clear_error(self):
        p = subprocess.run(self.AS_NOBODY + ["--inh-caps=-all", "--bounding-set=-all", TAPO, "-i", "lo",
                                             "-w", os.devnull], capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 2)
        self.assertIn("no permission to capture", p.stderr)
        self.assertIn("cap_net_raw", p.stderr)


if __name__ == "__main__":
    unittest.main()
