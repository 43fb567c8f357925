"""The Lua companion (lua/tapo_flows.lua) through tshark: its per-flow
numbers are recomputed here from the C plugin's fields and plain TCP
fields, for text, CSV and JSON output, one and two passes."""

import collections
import csv
import glob
import io
import json
import os
import shutil
import subprocess
import unittest

import tshark_runner as ts

CAPTURES = os.path.join(ts.ROOT, "test-captures")
REAL = ts.REAL_CAPTURES
SCHEMA = os.path.join(ts.ROOT, "docs", "tapo-flows.schema.json")
TOLERANCE = 2e-6   # the report prints 6 decimals


def report(pcap, fmt, two_pass=True, limit=0):
    args = (["-2"] if two_pass else []) + [
        "-q", "-X", "lua_script:" + ts.lua_script(), "-X", "lua_script1:format=" + fmt,
        "-X", "lua_script1:limit=%d" % limit, "-r", ts.readable(pcap)]
    return ts.run(args).stdout


def independent_flows(pcap, two_pass=True):
    """Per-stream numbers from tcp.* fields and the C plugin's tapo.stall.* fields."""
    out = ts.run(["-r", ts.readable(pcap), "-T", "fields", "-E", "separator=/t", "-e", "tcp.stream",
                  "-e", "frame.time_relative", "-e", "tcp.len", "-e", "tcp.dstport", "-e", "tcp.srcport",
                  "-e", "tcp.flags"]).stdout
    flows = {}
    for line in out.splitlines():
        stream, t, length, dport, sport, flags = line.split("\t")
        if not stream:
            continue
        stream, t = int(stream.split(",")[-1]), float(t)
        f = flows.get(stream)
        if f is None:
            # The client sent the SYN; else the ports tell (a service's
            # port, below 1024, else below the ephemeral range, against a
            # client's); else the first packet's sender is the client.
            bits = int(flags.split(",")[-1], 16) if flags else 0
            s, d = int(sport.split(",")[-1]), int(dport.split(",")[-1])
            if bits & 0x02:
                server_is_src = bool(bits & 0x10)
            elif (s < 1024) != (d < 1024):
                server_is_src = s < 1024
            else:
                server_is_src = (s < 32768) != (d < 32768) and s < 32768
            server_port = sport if server_is_src else dport
            f = flows[stream] = {"first": t, "last": t, "server_port": server_port,
                                 "to_server": 0, "to_client": 0, "stalls": 0, "time": 0.0,
                                 "causes": collections.defaultdict(lambda: [0, 0.0]),
                                 "confidence": {"high": 0, "medium": 0, "low": 0},
                                 "rank": {"act": 0.0, "other": 0.0, "idle": 0.0}}
        f["first"], f["last"] = min(f["first"], t), max(f["last"], t)
        key = "to_server" if dport.split(",")[-1] == f["server_port"].split(",")[-1] else "to_client"
        f[key] += int(length.split(",")[-1] or 0)
    for stream, duration, cause, confidence, category in ts.stall_fields(
            pcap, ["tcp.stream", "tapo.stall.duration", "tapo.stall.cause", "tapo.stall.confidence",
                   "tapo.stall.category"], two_pass=two_pass):
        f = flows[int(stream.split(",")[-1])]
        f["confidence"][confidence] += 1
        f["stalls"] += 1
        f["time"] += float(duration)
        f["causes"][cause][0] += 1
        f["causes"][cause][1] += float(duration)
        # What an operator can act on (network, server), the rest, idle time.
        part = "idle" if cause == "client-idle" else "act" if category in ("network", "server") else "other"
        f["rank"][part] += float(duration)
    for f in flows.values():
        f["duration"] = f["last"] - f["first"]
        f["ratio"] = min(1.0, f["time"] / f["duration"]) if f["duration"] > 0 else 0.0
        # Idle time aside: client-idle is the dominant cause only alone.
        ranked = sorted(f["causes"].items(), key=lambda kv: (kv[0] == "client-idle", -kv[1][1], -kv[1][0], kv[0]))
        f["dominant"] = ranked[0][0] if ranked else None
    return flows


def rank_key(f):
    """The order flows are listed in: most to act on first."""
    return (-f["rank"]["act"], -f["rank"]["other"], -f["rank"]["idle"])


def test_captures():
    names = sorted(glob.glob(os.path.join(CAPTURES, "*.pcap")))
    for extra in ("blitz__tcptrace__6syns.dmp", "ntop__nDPI__reddit.pcap", "zeek__zeek__head__tunnels__gre-aruba.pcap"):
        if os.path.exists(os.path.join(REAL, extra)):
            names.append(os.path.join(REAL, extra))
    return names


class JsonReport(unittest.TestCase):
    def setUp(self):
        try:
            import jsonschema
        except ImportError:
            self.skipTest("python3-jsonschema is not installed (scripts/install-deps installs it)")
        with open(SCHEMA) as f:
            self.validator = jsonschema.Draft7Validator(json.load(f))

    def check(self, pcap, two_pass):
        data = json.loads(report(pcap, "json", two_pass))
        errors = [e.message for e in self.validator.iter_errors(data)]
        self.assertEqual(errors, [])
        want = independent_flows(pcap, two_pass)
        self.assertEqual(sorted(f["stream"] for f in data["flows"]), sorted(want))
        for flow in data["flows"]:
            w = want[flow["stream"]]
            self.assertEqual(flow["stalls"], w["stalls"], flow["stream"])
            self.assertAlmostEqual(flow["stalled_time_s"], w["time"], delta=TOLERANCE * (1 + w["stalls"]))
            self.assertAlmostEqual(flow["duration_s"], w["duration"], delta=TOLERANCE)
            self.assertAlmostEqual(flow["stall_ratio"], w["ratio"], delta=1e-5)
            self.assertEqual(flow["dominant_cause"], w["dominant"])
            self.assertEqual((flow["bytes_to_server"], flow["bytes_to_client"]), (w["to_server"], w["to_client"]))
            self.assertEqual({c["cause"]: c["stalls"] for c in flow["causes"]},
                             {c: n for c, (n, _) in w["causes"].items()})
            self.assertEqual(flow["stalls_by_confidence"], w["confidence"])
            self.assertAlmostEqual(flow["idle_time_s"], w["rank"]["idle"], delta=TOLERANCE * (1 + w["stalls"]))
        order = sorted(want, key=lambda st: (tuple(round(x, 6) for x in rank_key(want[st])), st))
        self.assertEqual([f["stream"] for f in data["flows"]], order, "most to act on first")
        self.assertEqual(data["summary"]["flows"], len(want))
        self.assertEqual(data["summary"]["stalled_flows"], sum(1 for w in want.values() if w["stalls"]))
        self.assertEqual(data["summary"]["stalls"], sum(w["stalls"] for w in want.values()))
        return data

    def test_every_capture_two_pass(self):
        for pcap in test_captures():
            with self.subTest(capture=os.path.basename(pcap)):
                data = self.check(pcap, True)
                if data["summary"]["stalls"]:
                    self.assertEqual(data["mode"], "two-pass: final causes")

    def test_one_pass(self):
        for name in ("ack-delay", "mixed-web"):
            with self.subTest(capture=name):
                data = self.check(os.path.join(CAPTURES, name + ".pcap"), False)
                self.assertTrue(data["mode"].startswith("one-pass"))

    def test_quantiles(self):
        data = json.loads(report(os.path.join(CAPTURES, "mixed-web.pcap"), "json"))
        ratios = sorted(f["stall_ratio"] for f in data["flows"])
        q = {x["percent"]: x["stall_ratio"] for x in data["summary"]["stall_ratio_quantiles"]}
        self.assertEqual(q[100], ratios[-1])
        self.assertEqual(q[50], ratios[(len(ratios) + 1) // 2 - 1])


class CsvAndTextReports(unittest.TestCase):
    def test_csv_is_a_table_with_a_header(self):
        pcap = os.path.join(CAPTURES, "mixed-web.pcap")
        rows = list(csv.DictReader(io.StringIO(report(pcap, "csv"))))
        want = independent_flows(pcap)
        self.assertEqual(len(rows), len(want))
        for row in rows:
            w = want[int(row["stream"])]
            self.assertEqual(int(row["stalls"]), w["stalls"])
            self.assertAlmostEqual(float(row["stalled_time_s"]), w["time"], delta=1e-5)
            self.assertAlmostEqual(float(row["stall_ratio"]), w["ratio"], delta=1e-5)
            self.assertEqual(row["dominant_cause"] or None, w["dominant"])
            self.assertEqual(int(row["low_confidence_stalls"]), w["confidence"]["low"])

    def test_csv_limit(self):
        rows = list(csv.reader(io.StringIO(report(os.path.join(CAPTURES, "mixed-web.pcap"), "csv", limit=3))))
        self.assertEqual(len(rows), 4)

    def test_text_report(self):
        pcap = os.path.join(CAPTURES, "mixed-web.pcap")
        text = report(pcap, "text", limit=5)
        want = independent_flows(pcap)
        self.assertIn("TAPO flow report (two-pass: final causes)", text)
        self.assertIn("Flows: %d, with stalls: %d; stalls: %d" % (
            len(want), sum(1 for w in want.values() if w["stalls"]),
            sum(w["stalls"] for w in want.values())), text)
        self.assertIn("(%d more flows; use limit=0 for all)" % (len(want) - 5), text)
        worst = min(want.items(), key=lambda kv: (rank_key(kv[1]), kv[0]))
        lines = text.split("\n")
        header = next(i for i, line in enumerate(lines) if "client -> server" in line and "stream" in line)
        first_flow_line = lines[header + 1]
        self.assertTrue(first_flow_line.split()[0] == str(worst[0]), first_flow_line)
        self.assertIn(worst[1]["dominant"], first_flow_line)


class PerPacketFields(unittest.TestCase):
    def test_tapoflow_fields(self):
        pcap = os.path.join(CAPTURES, "mixed-web.pcap")
        out = ts.run(["-2", "-X", "lua_script:" + ts.lua_script(), "-X", "lua_script1:format=none",
                      "-r", ts.readable(pcap), "-Y", "tapo.stall",
                      "-T", "fields", "-e", "tcp.stream", "-e", "tapo.stall.duration", "-e", "tapoflow.stall_index",
                      "-e", "tapoflow.stalled_time_so_far", "-e", "tapoflow.flow_stalls",
                      "-e", "tapoflow.flow_stalled_time"]).stdout
        want = independent_flows(pcap)
        seen = collections.defaultdict(lambda: [0, 0.0])
        for line in out.splitlines():
            stream, duration, index, so_far, n, total = line.split("\t")
            s = seen[int(stream)]
            s[0] += 1
            s[1] += float(duration)
            self.assertEqual(int(index), s[0])
            self.assertAlmostEqual(float(so_far), s[1], places=6)
            self.assertEqual(int(n), want[int(stream)]["stalls"])
            self.assertAlmostEqual(float(total), want[int(stream)]["time"], places=6)
        self.assertEqual(sum(s[0] for s in seen.values()), sum(w["stalls"] for w in want.values()))


class Installed(unittest.TestCase):
    """The script as scripts/setup installs it: loaded for every tshark run."""

    def run_installed(self, *args):
        pcap = ts.readable(os.path.join(CAPTURES, "tail-paper.pcap"))
        return ts.run(list(args) + ["-r", pcap], plugin_dir_override=ts.installed_plugin_dir()).stdout

    def test_silent_unless_asked(self):
        self.assertEqual(self.run_installed("-2", "-q", "-z", "expert").count("TAPO flow report"), 0)
        fields = self.run_installed("-2", "-Y", "tapo.stall", "-T", "fields", "-e", "tapoflow.stall_index")
        self.assertEqual(fields.split(), ["1"])

    def test_report_by_preference(self):
        out = self.run_installed("-2", "-q", "-o", "tapoflow.report:csv")
        self.assertTrue(out.startswith("stream,first_frame,client,server"), out[:200])

    def test_explicit_script_reaches_the_installed_copy(self):
        out = self.run_installed("-2", "-q", "-X", "lua_script:" + ts.lua_script(),
                                 "-X", "lua_script1:format=json")
        self.assertEqual(json.loads(out)["summary"]["stalls"], 1)


class WithoutThePlugin(unittest.TestCase):
    def test_one_clear_line(self):
        empty = os.path.join(ts.config_dir(), "no-plugins")
        os.makedirs(empty, exist_ok=True)
        os.chmod(empty, 0o755)
        argv = ts.command(["-q", "-X", "lua_script:" + ts.lua_script(), "-r",
                           ts.readable(os.path.join(CAPTURES, "tail-paper.pcap"))], empty)
        proc = subprocess.run(argv, capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0)
        lines = [l for l in proc.stderr.splitlines() if l.strip()]
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn("TAPO C plugin (tapo.so) is not loaded", lines[0])
        self.assertNotIn("traceback", proc.stderr.lower())
        self.assertEqual(proc.stdout, "")


class PureLuaModule(unittest.TestCase):
    def test_plain_lua_unit_tests(self):
        """With Lua 5.2 (Wireshark 4.0) and 5.4 (Debian's 4.4 and 4.6), where installed."""
        interpreters = [lua for lua in ("lua5.2", "lua5.4") if shutil.which(lua)]
        self.assertTrue(interpreters, "no lua5.2 or lua5.4 (scripts/install-deps installs lua5.2)")
        for lua in interpreters:
            proc = subprocess.run([lua, os.path.join(ts.ROOT, "tests", "lua", "test_report.lua")],
                                  capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, lua + ": " + proc.stderr)


if __name__ == "__main__":
    unittest.main()
