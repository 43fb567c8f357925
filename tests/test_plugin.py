"""The Wireshark glue, through tshark: registration, the fields of spec
section 5, display filters, one and two passes, preferences, expert info.

Values are checked against what plain tshark fields say about the same
packets (frame times, sequence numbers), not against TAPO itself.
"""

import os
import unittest

import stall_invariants
import tshark_runner as ts
from stall_invariants import SPEC_CAUSES

CAPTURES = os.path.join(ts.ROOT, "test-captures")

# Spec section 5: the contract users' filters and scripts depend on.
SPEC_FIELDS = [
    "tapo.stall", "tapo.stall.cause", "tapo.stall.category", "tapo.stall.retransmission",
    "tapo.stall.duration", "tapo.stall.threshold", "tapo.stall.srtt", "tapo.stall.rto",
    "tapo.stall.prev_frame", "tapo.stall.ca_state", "tapo.stall.in_flight",
    "tapo.stall.packets_out", "tapo.stall.sacked_out", "tapo.stall.lost_out",
    "tapo.stall.retrans_out", "tapo.stall.rwnd", "tapo.stall.init_rwnd", "tapo.stall.mss",
    "tapo.stall.retrans_count", "tapo.stall.first_retrans", "tapo.stall.spurious",
    "tapo.stall.position", "tapo.stall.final", "tapo.stall.hint",
    "tapo.vantage", "tapo.sender", "tapo.stall.inferred",
]


def cap(name):
    return os.path.join(CAPTURES, name + ".pcap")


class Registration(unittest.TestCase):
    def test_plugin_is_listed(self):
        out = ts.run(["-G", "plugins"]).stdout
        self.assertRegex(out, r"tapo\.so\s+\d+\.\d+\.\d+\s+dissector")

    def test_every_spec_field_is_registered(self):
        out = ts.run(["-G", "fields"]).stdout
        registered = {line.split("\t")[2] for line in out.splitlines() if line.startswith("F\t")}
        registered |= {line.split("\t")[2] for line in out.splitlines() if line.startswith("P\t")}
        missing = [f for f in SPEC_FIELDS if f not in registered]
        self.assertEqual(missing, [], "fields of spec section 5 missing")

    def test_preferences_have_spec_defaults(self):
        out = ts.run(["-G", "defaultprefs"]).stdout
        for line in ["#tapo.tau: 2", "#tapo.small_window: 4", "#tapo.rto_min_ms: 200",
                     "#tapo.rto_initial_ms: 1000", "#tapo.min_stall_ms: 10",
                     "#tapo.sender: Automatic (the heavier data sender)",
                     "#tapo.vantage: Inferred per connection", "#tapo.analyse: FALSE"]:
            self.assertTrue(line in out, "%r missing from tshark -G defaultprefs" % line)


class Filters(unittest.TestCase):
    def test_cause_filter_selects_the_labelled_frame(self):
        # f-double.expected names the frame independently of TAPO.
        frame = open(os.path.join(CAPTURES, "f-double.expected")).read().split("\n")[3].split("\t")[0]
        out = ts.run(["-2", "-r", ts.readable(cap("f-double")), "-Y", 'tapo.stall.cause == "f-double"',
                      "-T", "fields", "-e", "frame.number"]).stdout.split()
        self.assertEqual(out, [frame])

    def test_one_pass_filter_works_without_two_passes(self):
        out = ts.run(["-r", ts.readable(cap("tail-paper")), "-Y", 'tapo.stall.cause == "tail"',
                      "-T", "fields", "-e", "frame.number", "-e", "tapo.stall.final"]).stdout.split()
        self.assertEqual(len(out), 2)
        self.assertFalse(ts.normalise_bool(out[1]))

    def test_numeric_filters_on_durations(self):
        rows = ts.stall_fields(cap("client-idle"), ["frame.number"], extra=["-o", "tapo.tau:2"])
        longer = ts.run(["-2", "-r", ts.readable(cap("client-idle")), "-Y",
                         "tapo.stall.duration > 0.7", "-T", "fields", "-e", "frame.number"]).stdout.split()
        self.assertEqual(len(rows), 2)
        self.assertEqual(len(longer), 1)   # the 800 ms pause; the 600 ms one is below


class Values(unittest.TestCase):
    """Each stall's fields agree with the packets and with each other."""

    def test_values_on_every_labelled_capture(self):
        for name in sorted(os.listdir(CAPTURES)):
            if name.endswith(".pcap"):
                with self.subTest(capture=name):
                    stall_invariants.check_capture(self, os.path.join(CAPTURES, name))

    def test_retransmission_fields(self):
        # t-double-paper: the last segment (seq 7241) dropped twice (see its .lab.json).
        rows = ts.stall_fields(cap("t-double-paper"), ["tcp.seq", "tapo.stall.retrans_count",
                                                        "tapo.stall.first_retrans", "tapo.stall.ca_state"])
        self.assertEqual(rows, [["7241", "1", "timeout", "Open"], ["7241", "2", "timeout", "Loss"]])
        # With one segment out, Linux fires the probe at the RTO deadline: the
        # first retransmission is timer-driven either way (docs/algorithm.md).
        rows = ts.stall_fields(cap("t-double-tlp"), ["tapo.stall.retrans_count", "tapo.stall.first_retrans"])
        self.assertEqual([r[0] for r in rows], ["1", "2"])
        self.assertIn(rows[0][1], ("probe", "timeout"))
        self.assertEqual(rows[1][1], rows[0][1])
        rows = ts.stall_fields(cap("f-double"), ["tapo.stall.retrans_count", "tapo.stall.first_retrans",
                                                  "tapo.stall.ca_state"])
        self.assertEqual(rows, [["2", "fast", "Recovery"]])

    def test_windows_from_the_handshake(self):
        # small-rwnd: SO_RCVBUF 4096 made the client's SYN advertise 2920 bytes.
        syn = ts.run(["-r", ts.readable(cap("small-rwnd")), "-Y", "tcp.flags == 0x002", "-T", "fields",
                      "-e", "tcp.window_size", "-e", "tcp.options.mss_val"]).stdout.split()
        rows = ts.stall_fields(cap("small-rwnd"), ["tapo.stall.init_rwnd", "tapo.stall.rwnd"])
        self.assertEqual(rows[0][0], syn[0])
        self.assertLess(int(rows[0][1]), 4 * 1448)

    def test_spurious_only_with_hindsight(self):
        two = ts.stall_fields(cap("ack-delay"), ["tapo.stall.cause", "tapo.stall.spurious"])
        one = ts.stall_fields(cap("ack-delay"), ["tapo.stall.cause", "tapo.stall.spurious"], two_pass=False)
        self.assertEqual([c for c, _ in two], ["ack-delay", "packet-delay"])
        self.assertTrue(ts.normalise_bool(two[0][1]))
        self.assertEqual([c for c, _ in one], ["continuous-loss", "packet-delay"])
        self.assertFalse(ts.normalise_bool(one[0][1]))


class Preferences(unittest.TestCase):
    def test_tau_changes_the_threshold(self):
        default = ts.stall_fields(cap("packet-delay"), ["tapo.stall.threshold"])
        wider = ts.stall_fields(cap("packet-delay"), ["tapo.stall.threshold"], extra=["-o", "tapo.tau:1.5"])
        self.assertEqual(len(default), 1)
        self.assertEqual(len(wider), 1)
        self.assertLess(float(wider[0][0]), float(default[0][0]))
        none = ts.stall_fields(cap("packet-delay"), ["frame.number"], extra=["-o", "tapo.tau:10"])
        self.assertEqual(none, [])   # the 160 ms hold is below min(10 SRTT, RTO)

    def test_bad_tau_falls_back_to_two(self):
        proc = ts.run(["-o", "tapo.tau:abc", "-2", "-r", ts.readable(cap("packet-delay")), "-Y", "tapo.stall",
                       "-T", "fields", "-e", "tapo.stall.threshold"])
        self.assertIn("tau", proc.stderr)
        self.assertEqual(len(proc.stdout.split()), 1)

    def test_sender_preference(self):
        # The server's first response byte ends the think-time stall: "out"
        # from the server (responder, the default, or port 8080), "in" when
        # the client (initiator) is analysed as the sender.
        def direction_of_response(*prefs):
            rows = ts.stall_fields(cap("data-unavailable"), ["frame.number", "tapo.stall.pkt_dir"],
                                   extra=list(prefs))
            return dict(rows).get("6")
        self.assertEqual(direction_of_response(), "out")
        self.assertEqual(direction_of_response("-o", "tapo.sender:ports", "-o", "tapo.server_ports:8080"), "out")
        self.assertEqual(direction_of_response("-o", "tapo.sender:initiator"), "in")

    def test_small_window_preference(self):
        rows = ts.stall_fields(cap("continuous-loss"), ["tapo.stall.cause"],
                               extra=["-o", "tapo.small_window:20"])
        self.assertEqual(rows, [["small-cwnd"]])   # 10 in flight is "small" below 20


def real(name):
    return os.path.join(ts.REAL_CAPTURES, name)


class TreeText(unittest.TestCase):
    """What the packet tree says beside the values (issue 28): where a
    duration was measured, how in-flight adds up, what the MSS was taken
    from, and the position without seventeen digits."""

    def tree(self, pcap, frame):
        return ts.run(["-2", "-r", ts.readable(pcap), "-Y", "frame.number == %d" % frame, "-O", "tapo"]).stdout

    def test_at_the_sender_the_gap_is_between_the_two_frames(self):
        text = self.tree(cap("f-double"), 77)
        self.assertIn("Stall: f-double (network, data), 0.254 s after frame 76", text)
        self.assertIn("In flight: 1 (packets out 5 + retransmitted out 1 - SACKed out 4 - lost out 1)", text)
        self.assertRegex(text, r"Position: 0\.875\]")

    @unittest.skipUnless(os.path.isdir(ts.REAL_CAPTURES), "no shared real captures")
    def test_away_from_the_sender_it_is_on_the_senders_timeline(self):
        # Captured at the client: frames 7 and 9 are 0.433 s apart here,
        # the server's stall 0.332 s on its own clock.
        text = self.tree(real("CESNET__ipfixprobe__tests__functional__inputs__ovpn.pcap"), 9)
        self.assertIn("0.332 s at the sender since frame 7", text)
        self.assertNotIn("s after frame 7", text)
        self.assertIn("on the sender's timeline: captured at the receiver", text)
        self.assertRegex(text, r"Position: 0\.000497\]")

    @unittest.skipUnless(os.path.isdir(ts.REAL_CAPTURES), "no shared real captures")
    def test_an_mss_smaller_than_the_packet_says_where_it_came_from(self):
        text = self.tree(real("FoxIO-LLC__ja4__pcap__ssh2.pcapng"), 133)
        self.assertIn("MSS: 56 (the sender's largest segment before the stall: no MSS option in the capture; "
                      "this packet carries 1116 bytes)", text)


class ExpertInfo(unittest.TestCase):
    def test_one_expert_entry_per_cause(self):
        out = ts.run(["-2", "-q", "-z", "expert", "-o", "tapo.analyse:TRUE",
                      "-r", ts.readable(cap("t-double-paper"))]).stdout
        self.assertRegex(out, r"\n\s+1\s+Sequence\s+TAPO\s+TAPO stall: tail ")
        self.assertRegex(out, r"\n\s+1\s+Sequence\s+TAPO\s+TAPO stall: t-double ")

    def test_severity(self):
        out = ts.run(["-2", "-q", "-z", "expert,note,tapo", "-r", ts.readable(cap("data-unavailable"))]).stdout
        notes = out.split("Notes")[1] if "Notes" in out else ""
        self.assertIn("TAPO stall: data-unavailable", notes)


if __name__ == "__main__":
    unittest.main()
