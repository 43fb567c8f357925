"""Live analysis (issue 20) on real Linux TCP through the lab's relay: a
response's last segment is lost twice (a tail stall, then a t-double), and
the client goes on with eight more requests.  In the same run, on the
server's interface:

- `tapo -i` streams each stall's row while the traffic still runs, every
  field as `tapo` gives it on the saved capture of the same run,
  confidence and caveat included (issue 28), and on SIGINT prints its
  report and exits 0;
- `tshark -i -` (tcpdump feeding tshark's live capture, tshark as an
  unprivileged user) shows TAPO's one-pass verdicts as the packets come,
  the ones one-pass tshark gives on the saved capture.

Needs root, network namespaces and TUN devices (as test_lab_replay)."""

import json
import os
import re
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


# Fields whose value depends on when the row was written, not on the
# verdict: the file, the time stamps of two captures of the same packets
# (compared within TIME_SLACK_S), frame numbers (compared as an offset
# between the two captures), finality.
TIME_SLACK_S = 0.002
TIME_FIELDS = {"frame.time_epoch", "tapo.stall.duration", "tapo.stall.threshold", "tapo.stall.srtt",
               "tapo.stall.rto", "tapo.stall.rtt_to_sender", "tapo.stall.rtt_to_receiver", "tapo.stall.saving"}
FRAME_FIELDS = {"frame.number", "tapo.conn", "tapo.stall.prev_frame", "tapo.stall.orig_frame",
                "tapo.stall.prev_retrans_frame", "tapo.stall.loss_signal_frame", "tapo.stall.dsack_frame",
                "tapo.stall.window_frame", "tapo.stall.window_update_frame"}
NOT_COMPARED = {"file", "tapo.stall.final"}
# tapo.stall.position is the packet's place in the sender's data: live, in
# what it had sent by the time the row was written; saved, in all it sent
# (docs/fields.md).  The live share is never the smaller.


def same_text(a, b):
    """Hints name durations to the millisecond: equal but for those."""
    number = re.compile(r"\d+\.\d{3} s")
    if number.sub("", a) != number.sub("", b):
        return False
    return all(abs(float(x[:-2]) - float(y[:-2])) <= TIME_SLACK_S + 0.0005
               for x, y in zip(number.findall(a), number.findall(b)))


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
        # Every field as on the saved capture, stall by stall (matched by
        # time), confidence and caveat included.
        saved = [json.loads(l) for l in subprocess.run(
            [os.path.join(ts.BUILD, "tapo"), "-q", "-F", "jsonl", self.pcap],
            capture_output=True, text=True, check=True).stdout.splitlines()]
        self.assertEqual(len(saved), len(rows))
        offsets = set()
        for _, r in rows:
            s = min(saved, key=lambda x: abs(x["frame.time_epoch"] - r["frame.time_epoch"]))
            offset = r["frame.number"] - s["frame.number"]
            offsets.add(offset)
            for field in sorted(set(r) | set(s)):
                live, want = r.get(field), s.get(field)
                with self.subTest(frame=s["frame.number"], field=field):
                    if field in NOT_COMPARED:
                        continue
                    if field == "tapo.stall.position":
                        self.assertGreaterEqual(live, want - 1e-9)
                        self.assertLessEqual(live, 1.0)
                        continue
                    if field in TIME_FIELDS and live is not None and want is not None:
                        self.assertAlmostEqual(live, want, delta=TIME_SLACK_S)
                    elif field in FRAME_FIELDS and live is not None and want is not None:
                        self.assertEqual(live - offset, want)
                    elif isinstance(live, str) and isinstance(want, str) and " s" in want:
                        self.assertTrue(same_text(live, want), (live, want))
                    else:
                        self.assertEqual(live, want)
            self.assertFalse(r["tapo.stall.final"])
        self.assertEqual(len(offsets), 1, "the two captures hold the same packets")
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
