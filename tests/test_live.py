"""Live analysis (issue 20) on real Linux TCP through the lab's relay: a
response's last segment is lost twice (a tail stall, then a t-double), and
the client goes on with eight more requests.  In the same run, on the
server's interface:

- `tapo -i` streams each stall's row while the traffic still runs, with
  the cause `tapo` gives on the saved capture, and on SIGINT prints its
  report and exits 0;
- `tshark -i -` (tcpdump feeding tshark's live capture, tshark as an
  unprivileged user) shows TAPO's one-pass verdicts as the packets come,
  the ones one-pass tshark gives on the saved capture.

Needs root, network namespaces and TUN devices (as test_lab_replay)."""

import json
import os
import shlex
import shutil
import subprocess
import sys
import unittest

import test_lab_replay
import tshark_runner as ts

LAB = os.path.join(ts.ROOT, "test-captures", "lab")
sys.path.insert(0, LAB)

import lab        # noqa: E402
import scenarios  # noqa: E402

LAST = 1 + 5 * scenarios.MSS4        # relative sequence number of an 8000-byte response's last segment


def live_scenario():
    requests = [dict(size=8000)] + [dict(size=8000, wait_ms=500) for _ in range(8)]
    return scenarios.Scenario(
        "live-blackout", "A response's last segment is lost twice; eight more requests follow.",
        "paper", {"connections": [{"requests": requests, "linger_ms": 50}]}, [],
        link={"drops": [{"dir": "s2c", "seq": LAST, "tx": [1, 2], "at": "server"}]}, settle_s=1.0)


@unittest.skipUnless(test_lab_replay.POSSIBLE, test_lab_replay.WHY_NOT)
class LiveOnTheRelay(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = ts.work_dir("tapo-live-")
        tapo = os.path.join(ts.BUILD, "tapo")
        tshark = " ".join(shlex.quote(a) for a in ts.command(
            ["-l", "-i", "-", "-Y", "tapo.stall", "-T", "fields", "-E", "separator=/t",
             "-e", "frame.number", "-e", "frame.time_epoch", "-e", "tapo.stall.cause", "-e", "tapo.stall.final"]))
        monitors = {
            "tapo": [tapo, "-i", "{iface}", "-f", "tcp port {port}", "--settle", "0.5", "--interval", "1",
                     "-F", "jsonl", "-w", "/dev/stdout", "--report", "json"],
            "tshark": ["sh", "-c", "tcpdump -i {iface} -U -w - tcp port {port} 2>/dev/null | " + tshark],
        }
        pcaps, cls.sidecar = lab.run_live(live_scenario(), cls.dir, monitors=monitors)
        cls.pcap = pcaps["sender"]
        os.chmod(cls.pcap, 0o644)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def monitor(self, name):
        return self.sidecar["monitors"][name]

    def test_tapo_streams_rows_while_the_traffic_runs(self):
        m = self.monitor("tapo")
        self.assertEqual(m["returncode"], 0, m["stderr"])
        rows = [(t, json.loads(line)) for t, line in m["lines"] if line.startswith('{"file"')]
        causes = [r["tapo.stall.cause"] for _, r in rows]
        self.assertIn("tail", causes)
        self.assertIn("t-double", causes)
        first_retransmission = min(t for t, r in rows if r["tapo.stall.retransmission"])
        self.assertLess(first_retransmission, self.sidecar["client_done_s"] - 1.0,
                        "the row came %.1f s after the start, the client was done at %.1f s"
                        % (first_retransmission, self.sidecar["client_done_s"]))
        # The same causes as on the saved capture, stall by stall (by time).
        saved = subprocess.run([os.path.join(ts.BUILD, "tapo"), "-q", "-F", "jsonl", self.pcap],
                               capture_output=True, text=True, check=True).stdout.splitlines()
        by_time = {round(json.loads(l)["frame.time_epoch"], 3): json.loads(l)["tapo.stall.cause"] for l in saved}
        for _, r in rows:
            if r["tapo.stall.retransmission"]:
                self.assertEqual(by_time.get(round(r["frame.time_epoch"], 3)), r["tapo.stall.cause"])
        # SIGINT printed the report, with every stall.
        text = "\n".join(line for _, line in m["lines"] if not line.startswith('{"file"'))
        report = json.loads(text[text.index("{"):])
        stalls = next(n for n in report["breakdown"]["children"] if n["name"] == "Stalls")
        self.assertGreaterEqual(stalls["total"], 2)
        self.assertIn("stalls written", m["stderr"])

    def test_tshark_live_gives_one_pass_verdicts(self):
        m = self.monitor("tshark")
        rows = [(t, line.split("\t")) for t, line in m["lines"] if line.count("\t") == 3]
        live = [f[2] for _, f in rows]
        self.assertIn("tail", live)
        self.assertLess(min(t for t, f in rows if f[2] == "tail"), self.sidecar["client_done_s"] - 1.0)
        for _, f in rows:
            self.assertFalse(ts.normalise_bool(f[3]), "a live verdict cannot be final")
        # The stalls one-pass tshark finds on the saved capture, in order
        # (live and saved stamps differ in their last printed digit).
        saved = ts.run(["-r", ts.readable(self.pcap), "-Y", "tapo.stall", "-T", "fields",
                        "-e", "tapo.stall.cause"]).stdout.split()
        self.assertEqual(live, saved)


if __name__ == "__main__":
    unittest.main()
