"""Captures written by others (../shared/real-captures, read in place, never
copied here): odd link types, IPv6, tunnels, duplicated frames, zero
windows, RTO backoff.  TAPO must dissect every one without a crash or a
dissector bug, keep its field invariants, and say what a reader of the
packets would say for the cases below.
"""

import glob
import os
import unittest

import tshark_runner as ts
from test_plugin import Values

REAL = os.environ.get("TAPO_REAL_CAPTURES",
                      os.path.join(os.path.dirname(ts.ROOT), "shared", "real-captures"))


def real(name):
    return os.path.join(REAL, name)


@unittest.skipUnless(os.path.isdir(REAL), "no real captures at %s" % REAL)
class RealCaptures(unittest.TestCase):
    def captures(self):
        return sorted(p for p in glob.glob(os.path.join(REAL, "*"))
                      if not p.endswith((".md", ".tsv")))

    def test_every_capture_dissects_cleanly(self):
        checker = Values()
        for path in self.captures():
            with self.subTest(capture=os.path.basename(path)):
                for two_pass in (["-2"], []):
                    proc = ts.run(two_pass + ["-r", ts.readable(path), "-V"], check=False)
                    self.assertEqual(proc.returncode, 0, proc.stderr[-500:])
                    self.assertFalse("Dissector bug" in proc.stdout, "a dissector bug was reported")
                    self.assertFalse("Malformed Packet: TAPO" in proc.stdout, "TAPO threw")
                    self.assertFalse("TAPO" in proc.stderr, proc.stderr[-500:])
                checker.check_capture(path)

    def causes(self, name, *prefs):
        return [r[0] for r in ts.stall_fields(real(name), ["tapo.stall.cause"], extra=list(prefs))]

    def test_rto_backoff_is_a_double_retransmission(self):
        # One segment resent 5 times, no ACK in the capture: without an RTT
        # sample only gaps above the initial 1 s RTO count (1.2, 2.4, 4.8 s).
        rows = ts.stall_fields(real("chrissanders__packets__tcp_retransmissions.pcapng"),
                               ["tapo.stall.cause", "tapo.stall.retrans_count", "tapo.stall.duration"])
        self.assertEqual([(c, n) for c, n, _ in rows], [("t-double", "3"), ("t-double", "4"), ("t-double", "5")])

    def test_zero_window_that_never_reopens(self):
        self.assertEqual(set(self.causes("chrissanders__packets__tcp_zerowindowdead.pcapng")), {"zero-window"})

    def test_upload_needs_the_sender_preference(self):
        path = real("blitz__tcptrace__zwnd.dmp")
        expert = ts.run(["-2", "-q", "-z", "expert", "-r", ts.readable(path)]).stdout
        self.assertIn("the analysed sender sent far less data than its peer", expert)
        causes = self.causes("blitz__tcptrace__zwnd.dmp", "-o", "tapo.sender:initiator")
        self.assertGreaterEqual(causes.count("zero-window"), 10)
        self.assertNotIn("resource-constraint", causes)   # 10 ms clock ticks are no stalls

    def test_syn_retries_are_retransmission_stalls(self):
        # Four SYN retries with backoff (6, 12, 24 s gaps, and one in the
        # second connection), then a SYN-ACK 1 s after the last retry.
        rows = ts.stall_fields(real("blitz__tcptrace__6syns.dmp"),
                               ["frame.number", "tapo.stall.cause", "tapo.stall.retransmission"],
                               extra=["-Y", "tcp.flags.syn == 1"])
        rows = [(int(f), c, ts.normalise_bool(r)) for f, c, r in rows]
        self.assertEqual(rows[:4], [(2, "undetermined", True), (3, "undetermined", True),
                                    (4, "undetermined", True), (5, "data-unavailable", False)])

    def test_duplicated_frames_are_not_retransmissions(self):
        rows = ts.stall_fields(real("blitz__tcptrace__hardware_dups.dmp"), ["tapo.stall.retransmission"])
        self.assertTrue(rows)
        self.assertFalse(any(ts.normalise_bool(r[0]) for r in rows))

    def test_ipv6_and_tunnels_are_analysed(self):
        for name in ("ntop__nDPI__reddit.pcap", "epiecs__packetlife-backup__ipv6-smtp.pcapng.cap",
                     "zeek__zeek__head__tunnels__gre-aruba.pcap", "blitz__tcptrace__ipv6_ftp_nasa.snp",
                     "seladb__PcapPlusPlus__four_ipv6_http_streams.pcap"):
            with self.subTest(capture=name):
                self.assertTrue(self.causes(name))


if __name__ == "__main__":
    unittest.main()
