"""The tapo command in pipelines (issue 20): no output is ever lost
silently (a full disk, a closed pipe: a message naming the output and a
non-zero exit, for every output option), rows stream from a pipe as their
stalls settle, inputs are what Wireshark reads (a pcapng with interfaces of
different link types and snapshot lengths) and bad ones a clear error,
tshark's -r, --version, and the manual page once installed."""

import fcntl
import io
import json
import os
import re
import select
import shutil
import struct
import subprocess
import tempfile
import time
import unittest

import batch_compare
import pcapfile
import tshark_runner as ts

CAPTURES = os.path.join(ts.ROOT, "test-captures")
MIXED = os.path.join(CAPTURES, "mixed-web.pcap")
TAPO = os.path.join(ts.BUILD, "tapo")


def tapo(*args, **kw):
    return subprocess.run([TAPO] + list(args), capture_output=True, text=True, **kw)


class NothingLostSilently(unittest.TestCase):
    # Each way of asking for output, with where it goes.
    OPTIONS = {
        "stall rows on stdout": ([], "stdout"),
        "--stalls": (["-w", "{out}"], "file"),
        "--flows": (["--flows", "{out}", "-w", os.devnull], "file"),
        "--report text": (["--report", "text"], "stdout"),
        "--report json": (["--report", "json"], "stdout"),
        "--partial": (["--partial", "{out}"], "file"),
        "--episodes": (["--episodes", "{out}", "-w", os.devnull], "file"),
        # (any Chart.js will do: a tapo built without one still writes)
        "--html": (["--html", "{out}", "--chart-js", os.devnull], "file"),
    }

    def argv(self, args, out):
        return [TAPO, "-q"] + [a.replace("{out}", out) for a in args] + [MIXED]

    def test_a_full_disk(self):
        for name, (args, where) in self.OPTIONS.items():
            with self.subTest(option=name):
                if where == "stdout":
                    with open("/dev/full", "w") as full:
                        p = subprocess.run(self.argv(args, ""), stdout=full, stderr=subprocess.PIPE, text=True)
                    expected = "standard output"
                else:
                    p = subprocess.run(self.argv(args, "/dev/full"), capture_output=True, text=True)
                    expected = "/dev/full"
                self.assertNotEqual(p.returncode, 0)
                self.assertIn(expected + ": No space left on device", p.stderr)

    def test_a_closed_pipe(self):
        for name, (args, where) in self.OPTIONS.items():
            with self.subTest(option=name):
                r, w = os.pipe()
                os.close(r)
                out = "/dev/stdout" if where == "file" else ""
                p = subprocess.run(self.argv(args, out), stdout=w, stderr=subprocess.PIPE, text=True)
                os.close(w)
                self.assertNotEqual(p.returncode, 0)
                self.assertIn("Broken pipe", p.stderr)

    def test_a_failed_partial_leaves_no_file(self):
        tmp = tempfile.mkdtemp(prefix="tapo-cli-")
        try:
            missing = os.path.join(tmp, "no-such-folder", "part.json")
            p = tapo("-q", "--partial", missing, MIXED)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn(missing, p.stderr)
            self.assertFalse(os.path.exists(missing))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class Inputs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tapo-inputs-", dir=ts.config_dir())
        os.chmod(self.tmp, 0o755)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_empty_and_garbage_files_are_clear_errors(self):
        empty, garbage = os.path.join(self.tmp, "empty.pcap"), os.path.join(self.tmp, "garbage.pcap")
        open(empty, "w").close()
        with open(garbage, "w") as f:
            f.write("this is no capture\n" * 10)
        for path, says in ((empty, "the file is empty"), (garbage, "isn't a capture file")):
            with self.subTest(path=os.path.basename(path)):
                p = tapo("-q", path)
                self.assertEqual(p.returncode, 2)
                self.assertIn(path, p.stderr)
                self.assertIn(says, p.stderr)

    def test_two_interfaces_of_different_link_types_and_snaplens(self):
        # f-double.pcap is raw IP (snaplen 65535); mixed-web.pcap made
        # Ethernet and cut to 128 bytes: one pcapng, two interfaces.
        eth = os.path.join(self.tmp, "eth.pcap")
        merged = os.path.join(self.tmp, "two-interfaces.pcapng")
        _, records = pcapfile.read_pcap(MIXED)
        header = b"\x02\x00\x00\x00\x00\x01" + b"\x02\x00\x00\x00\x00\x02" + b"\x08\x00"
        pcapfile.write_pcap(eth, [(t, (header + d)[:128], orig + 14) for t, d, orig in records],
                            linktype=pcapfile.LINKTYPE_ETHERNET, snaplen=128)
        subprocess.run(["mergecap", "-F", "pcapng", "-w", merged, os.path.join(CAPTURES, "f-double.pcap"), eth],
                       check=True, capture_output=True)
        os.chmod(merged, 0o644)
        info = subprocess.run(["capinfos", merged], capture_output=True, text=True).stdout
        self.assertIn("Number of interfaces in file: 2", info)
        plugin = batch_compare.plugin_stalls(merged)
        batch = batch_compare.batch_stalls(merged)
        self.assertGreater(len(plugin), 20)
        self.assertEqual(sorted(batch), sorted(plugin))
        self.assertEqual({f: s["tapo.stall.cause"] for f, s in batch.items()},
                         {f: s["tapo.stall.cause"] for f, s in plugin.items()})

    def test_read_file_as_tshark(self):
        a, b = tapo("-q", "-r", MIXED), tapo("-q", MIXED)
        self.assertEqual(a.returncode, 0)
        self.assertEqual(a.stdout.replace(MIXED, ""), b.stdout.replace(MIXED, ""))

    def test_version(self):
        p = tapo("--version")
        self.assertEqual(p.returncode, 0)
        self.assertRegex(p.stdout, r"^tapo \d+\.\d+\.\d+ .*Wireshark \d+\.\d+")


class ShortOptions(unittest.TestCase):
    """Values attached to short options, as tshark and getopt take them."""

    def test_attached_and_separate_values_mean_the_same(self):
        want = tapo("-q", "-F", "jsonl", "-j", "1", MIXED)
        self.assertEqual(want.returncode, 0, want.stderr)
        self.assertGreater(want.stdout.count("\n"), 5)
        for args in (["-q", "-Fjsonl", "-j1"], ["-q", "-F", "jsonl", "--jobs=1"], ["-qj1", "-Fjsonl"],
                     ["-q", "-j1", "-F", "jsonl"], ["-qFjsonl", "-j", "1"]):
            with self.subTest(args=args):
                p = tapo(*(args + [MIXED]))
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(p.stdout, want.stdout)

    def test_an_attached_value_goes_to_its_option(self):
        # -j1 does not take the next argument for its value, and -F keeps its own.
        p = tapo("-q", "-j1", "-F", "csv", "--report", "json", MIXED)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["files"], 1)
        for args, says in ((["-j1x"], "\u201c1x\u201d for -j"), (["-Fxml"], "--format is csv or jsonl")):
            with self.subTest(args=args):
                p = tapo(*(args + [MIXED]))
                self.assertEqual(p.returncode, 1)
                self.assertIn(says, p.stderr)


class Streaming(unittest.TestCase):
    def test_rows_leave_a_pipe_as_their_stalls_settle(self):
        # mixed-web.pcap in two halves with a pause: rows of the first half
        # come out before the second half is written.
        with open(MIXED, "rb") as f:
            data = f.read()
        pos, records = 24, []
        while pos < len(data):
            incl = struct.unpack_from("<I", data, pos + 8)[0]
            records.append(data[pos:pos + 16 + incl])
            pos += 16 + incl
        half = len(records) // 2
        p = subprocess.Popen([TAPO, "-q", "--settle", "0", "-F", "jsonl", "-"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        fcntl.fcntl(p.stdout, fcntl.F_SETFL, os.O_NONBLOCK)
        p.stdin.write(data[:24] + b"".join(records[:half]))
        p.stdin.flush()
        early = b""
        end = time.monotonic() + 10
        while time.monotonic() < end and early.count(b"\n") < 3:
            select.select([p.stdout], [], [], 0.5)
            early += p.stdout.read() or b""
        p.stdin.write(b"".join(records[half:]))
        p.stdin.close()
        p.stdin = None
        fcntl.fcntl(p.stdout, fcntl.F_SETFL, 0)
        rest, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 0, err)
        self.assertGreaterEqual(early.count(b"\n"), 3, "no row before the input ended")
        rows = [json.loads(l) for l in (early + rest).decode().splitlines()]
        # The whole capture gives the same stalls (one-pass verdicts, as
        # one-pass tshark: the settle time is 0).
        one_pass = {int(f): c for f, c in ts.stall_fields(MIXED, ["frame.number", "tapo.stall.cause"],
                                                           two_pass=False)}
        self.assertEqual({r["frame.number"]: r["tapo.stall.cause"] for r in rows}, one_pass)
        self.assertFalse(any(r["tapo.stall.final"] for r in rows))


class Documented(unittest.TestCase):
    def test_every_option_is_in_the_manual_and_the_completion(self):
        options = set(re.findall(r"(--[a-z][a-z-]+)", tapo("--help").stdout)) - {"--help", "--help-all"}
        self.assertIn("--html", options)
        with open(os.path.join(ts.ROOT, "docs", "tapo.1")) as f:
            manual = f.read().replace("\\-", "-")
        with open(os.path.join(ts.ROOT, "scripts", "completion", "tapo")) as f:
            completion = f.read()
        for option in sorted(options):
            with self.subTest(option=option):
                self.assertTrue(option in manual, "docs/tapo.1 does not describe it")
                self.assertTrue(re.search(re.escape(option) + r"\b", completion), "the completion lacks it")


@unittest.skipUnless(shutil.which("tapo") and shutil.which("man"), "tapo is not installed (scripts/setup)")
class Installed(unittest.TestCase):
    def test_man_page(self):
        p = subprocess.run(["man", "-P", "cat", "tapo"], capture_output=True, text=True,
                           env=dict(os.environ, MANWIDTH="80"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("why TCP connections stalled", p.stdout)
        self.assertIn("--settle", p.stdout.replace("\u2010", "-"))


if __name__ == "__main__":
    unittest.main()
