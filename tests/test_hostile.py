"""Hostile captures (tests/hostile.py), read by tshark with the plugin built
under AddressSanitizer and UBSan: no crash, no sanitizer report, a sensible
verdict or a clear expert note for each; and the plugin's memory bounded per
connection (max RSS with the plugin minus without it, same command).
"""

import collections
import os
import shutil
import subprocess
import tempfile
import unittest

import batch_compare
import hostile
import sanitized
import tshark_runner as ts

# Wireshark's own reassembly of a never-ending HTTP stream of one-byte
# segments is quadratic; that is not the plugin's cost.
NO_REASSEMBLY = ["-o", "tcp.desegment_tcp_streams:FALSE"]


@unittest.skipUnless(sanitized.available(), "no sanitized plugin build at %s" % sanitized.SANITIZE_BUILD)
class HostileCaptures(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = ts.work_dir("tapo-hostile-")
        cls.paths = {}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def capture(self, name):
        if name not in self.paths:
            self.paths[name] = hostile.write(self.dir, name)
        return self.paths[name]

    def stalls(self, name, fields, passes=((), ("-2",)), extra=()):
        """The stall rows of each pass, asserting no fault in any."""
        rows = []
        for two_pass in passes:
            proc = sanitized.run(list(two_pass) + list(extra) + [
                "-r", self.capture(name), "-Y", "tapo.stall || tapo", "-T", "fields",
                "-E", "separator=/t"] + sum((["-e", f] for f in fields), []))
            self.assertEqual(sanitized.verdict(proc), "ok", proc.stderr[-3000:])
            self.assertEqual(proc.returncode, 0, proc.stderr[-1000:])
            rows = [line.split("\t") for line in proc.stdout.splitlines()]
        return rows   # of the last pass: two passes when both ran

    def max_rss_kb(self, name, plugin_dir, extra=()):
        argv = ts.command(list(extra) + ["-r", self.capture(name), "-q", "-z", "io,stat,0"],
                          plugin_dir_override=plugin_dir)
        proc = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr[-1000:])
        return int(proc.stderr.strip().splitlines()[-1])

    def plugin_memory_kb(self, name, extra=()):
        """What the plugin adds to tshark's peak memory on this capture."""
        empty = tempfile.mkdtemp(prefix="no-plugin-", dir=self.dir)
        os.chmod(empty, 0o755)
        return self.max_rss_kb(name, ts.plugin_dir(), extra) - self.max_rss_kb(name, empty, extra)

    def test_time_travel(self):
        # Back 10 s mid-response: no negative gap, a note once; twenty years
        # forward: the gap counts (client-idle before the next request),
        # with a note that the clock may have jumped.
        rows = self.stalls("time-travel", ["frame.number", "tapo.stall.cause", "tapo.stall.duration",
                                           "_ws.expert.message"])
        notes = " ".join(r[3] for r in rows)
        self.assertEqual(notes.count("not in time order"), 1)
        self.assertEqual(notes.count("more than a day"), 1)
        causes = [(r[1], float(r[2])) for r in rows if r[1]]
        self.assertIn("client-idle", [c for c, _ in causes])
        self.assertTrue(all(d >= 0.0 for _, d in causes))
        self.assertGreater(max(d for _, d in causes), 19 * hostile.YEAR_S)

    def test_absurd_options(self):
        # MSS 0 and 1 are ignored, 65535 gives way to the segments sent, a
        # window scale of 200 is Wireshark's 14: each connection's lost
        # last segment is a tail stall counted in sensible segments.
        rows = self.stalls("absurd-options", ["tcp.stream", "tapo.stall.cause", "tapo.stall.mss",
                                              "tapo.stall.packets_out"])
        rows = [r for r in rows if r[1]]
        self.assertEqual([r[1] for r in rows], ["tail"] * 4)
        self.assertEqual({r[2] for r in rows}, {"1460"})
        self.assertTrue(all(int(r[3]) <= 5 for r in rows))

    def test_wild_sacks(self):
        # SACK blocks a gigabyte beyond, far below across the wrap, inverted,
        # empty, overlapping and straddling the ACK: the lost fast
        # retransmission is still an f-double, and the counts stay within
        # the window.
        rows = self.stalls("wild-sacks", ["tapo.stall.cause", "tapo.stall.packets_out",
                                          "tapo.stall.sacked_out", "tapo.stall.first_retrans"])
        rows = [r for r in rows if r[0]]
        self.assertEqual([(r[0], r[3]) for r in rows], [("f-double", "fast")])
        self.assertLessEqual(int(rows[0][2]), int(rows[0][1]))

    def test_sequence_wraps(self):
        # Three times 4 GiB in one connection: the only stall is the lost
        # last segment, a tail, with a window of a few segments.
        rows = self.stalls("sequence-wraps", ["tapo.stall.cause", "tapo.stall.packets_out"])
        rows = [r for r in rows if r[0]]
        self.assertEqual([r[0] for r in rows], ["tail"])
        self.assertLessEqual(int(rows[0][1]), 8)

    def test_syn_flood(self):
        # 100 000 half-open connections: the only stalls are the resent
        # SYN-ACKs (a timer's retransmission the tree cannot refine), and
        # the plugin's memory stays a few kilobytes per connection.
        rows = self.stalls("syn-flood", ["tapo.stall.cause", "tapo.stall.retransmission"], passes=(("-2",),))
        counts = collections.Counter((r[0], ts.normalise_bool(r[1])) for r in rows if r[0])
        self.assertEqual(counts, {("undetermined", True): 5000})
        per_connection = self.plugin_memory_kb("syn-flood") / 100000.0
        self.assertLess(per_connection, 8.0, "%.1f KB per half-open connection" % per_connection)

    def test_tiny_segments(self):
        # Two million packets of one connection: the sender's 0.5 s pause is
        # the only stall, and the plugin's memory does not grow with the
        # number of packets (a bounded scoreboard, no per-packet state).
        rows = self.stalls("tiny-segments", ["tapo.stall.cause"], passes=((),), extra=NO_REASSEMBLY)
        self.assertEqual([r[0] for r in rows if r[0]], ["resource-constraint"])
        self.assertLess(self.plugin_memory_kb("tiny-segments", NO_REASSEMBLY), 16 * 1024)

    def test_icmp_quoted_headers(self):
        # ICMP errors quoting a server segment and a SYN with another ISN:
        # no segment of the connection (no stall from them); Wireshark starts
        # a new stream on the quoted SYN, so the rest of the response is a
        # connection seen from its middle, and its server pause is found.
        rows = self.stalls("icmp-quoted", ["tcp.stream", "tapo.stall.cause", "icmp.type"])
        self.assertEqual([(r[0], r[1]) for r in rows if r[1]], [("1", "resource-constraint")])

    def test_batch_analyser_survives_and_agrees(self):
        # The batch analyser, built with the sanitizers too, on the same
        # captures: no fault, and the plugin's stalls frame for frame.
        binary = os.path.join(sanitized.SANITIZE_BUILD, "tapo")
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:exitcode=86",
                   UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=87")
        for name in ("time-travel", "absurd-options", "wild-sacks", "icmp-quoted", "reused-ports",
                     "sequence-wraps", "syn-flood"):
            with self.subTest(capture=name):
                proc = subprocess.run([binary, "-q", "-j", "2", self.capture(name)], capture_output=True,
                                      text=True, env=env)
                self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
                if name == "syn-flood":   # 100 000 connections: tshark -2 twice is the slow part
                    continue
                # The plugin never writes a connection out; the batch analyser
                # does after an hour idle (the twenty-year jump): not here.
                never = ["--idle-timeout", "1e12"]
                self.assertEqual(batch_compare.differences(self.capture(name), never)[0], [])

    def test_reused_ports(self):
        # A thousand connections on the same ports, half of them first
        # answered by a SYN-ACK with another ISN: each is analysed on its
        # own, its think time a data-unavailable stall, nothing else.
        rows = self.stalls("reused-ports", ["tcp.stream", "tapo.stall.cause", "tapo.stall.packets_out"])
        rows = [r for r in rows if r[1]]
        self.assertEqual(collections.Counter(r[1] for r in rows), {"data-unavailable": 1000})
        self.assertEqual(len({r[0] for r in rows}), 1000)
        self.assertEqual({r[2] for r in rows}, {"0"})


if __name__ == "__main__":
    unittest.main()
