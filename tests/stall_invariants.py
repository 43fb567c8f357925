"""What every stall's fields must satisfy, whatever the capture: shared by
the tests of the labelled corpus and of captures written by others."""

import tshark_runner as ts

SPEC_CAUSES = ["f-double", "t-double", "tail", "small-cwnd", "small-rwnd", "continuous-loss",
               "ack-delay", "large-dupthres", "zero-window", "data-unavailable",
               "resource-constraint", "client-idle", "packet-delay", "undetermined"]
CATEGORY = {"f-double": "network", "t-double": "network", "tail": "network",
            "small-cwnd": "network", "small-rwnd": "network", "continuous-loss": "network",
            "ack-delay": "network", "large-dupthres": "network", "zero-window": "client",
            "data-unavailable": "server", "resource-constraint": "server", "client-idle": "client",
            "packet-delay": "network"}
VANTAGES = ("sender", "receiver", "middle")
# A retransmission its timer produced ends a stall even a hair below the
# threshold (spec section 3; TAPO_TIMER_SLACK in recovery.h)...
TIMER_SLACK = 0.98
# ...and below it altogether when it came the minimum RTO after its
# sender's previous transmission (the sender waited its timer), seconds.
RTO_MIN_S = 0.2
# The default minimum stall duration (tapo.min_stall_ms): no stall is
# shorter (spec section 3).
MIN_STALL_S = 0.010

FIELDS = ["frame.number", "tapo.stall.prev_frame", "tapo.stall.duration",
          "tapo.stall.threshold", "tapo.stall.srtt", "tapo.stall.rto", "tapo.stall.cause",
          "tapo.stall.category", "tapo.stall.retransmission", "tapo.stall.in_flight",
          "tapo.stall.packets_out", "tapo.stall.sacked_out", "tapo.stall.lost_out",
          "tapo.stall.retrans_out", "tapo.stall.position", "tapo.stall.final", "tapo.stall.hint",
          "tapo.vantage"]


def frame_times(pcap):
    out = ts.run(["-r", ts.readable(pcap), "-T", "fields", "-e", "frame.number",
                  "-e", "frame.time_relative"]).stdout
    return {int(a): float(b) for a, b in (l.split("\t") for l in out.splitlines())}


def since_own_transmission(pcap):
    """{frame: capture time since its sender's previous data, SYN or FIN
    in the same connection} for every such TCP frame (the timer's start)."""
    out = ts.run(["-r", ts.readable(pcap), "-Y", "tcp.len > 0 || tcp.flags.syn == 1 || tcp.flags.fin == 1",
                  "-T", "fields", "-e", "frame.number", "-e", "frame.time_relative", "-e", "tcp.stream",
                  "-e", "tcp.srcport"]).stdout
    last, since = {}, {}
    for line in out.splitlines():
        frame, t, stream, port = line.split("\t")
        key, t = (stream, port), float(t)
        if key in last:
            since[int(frame)] = t - last[key]
        last[key] = t
    return since


def check_capture(test, pcap):
    """Asserts the invariants on every two-pass stall of pcap."""
    times = frame_times(pcap)
    waited = since_own_transmission(pcap)
    for row in ts.stall_fields(pcap, FIELDS):
        r = dict(zip(FIELDS, row))
        frame, prev = int(r["frame.number"]), int(r["tapo.stall.prev_frame"])
        duration, threshold = float(r["tapo.stall.duration"]), float(r["tapo.stall.threshold"])
        vantage = r["tapo.vantage"]
        test.assertIn(vantage, VANTAGES)
        test.assertGreater(duration, 0.0)
        if vantage == "sender":
            # On the capture's own clock: the gap since the previous packet.
            # (Elsewhere it is the gap on the sender's timeline, which
            # tests/vantage_check.py compares with the sender's capture.)
            test.assertLess(prev, frame)
            test.assertAlmostEqual(duration, times[frame] - times[prev], places=5)
        retrans = ts.normalise_bool(r["tapo.stall.retransmission"])
        if duration <= threshold:
            test.assertTrue(retrans, "frame %d: a gap below the threshold ends no stall" % frame)
            timer_waited = vantage != "sender" or waited.get(frame, 0.0) >= TIMER_SLACK * RTO_MIN_S
            test.assertTrue(duration >= TIMER_SLACK * threshold or timer_waited,
                            "frame %d: below the threshold, yet no timer's wait" % frame)
        test.assertGreaterEqual(duration, MIN_STALL_S, "frame %d: shorter than the minimum stall duration" % frame)
        srtt, rto = float(r["tapo.stall.srtt"]), float(r["tapo.stall.rto"])
        if srtt > 0:
            test.assertAlmostEqual(threshold, min(2 * srtt, rto), places=6)
        test.assertGreaterEqual(rto, 0.2 - 1e-9)
        cause = r["tapo.stall.cause"]
        test.assertIn(cause, SPEC_CAUSES)
        if cause != "undetermined":
            test.assertEqual(r["tapo.stall.category"], CATEGORY[cause])
            test.assertEqual(retrans, CATEGORY[cause] == "network" and cause != "packet-delay")
        expected_in_flight = max(0, int(r["tapo.stall.packets_out"]) + int(r["tapo.stall.retrans_out"])
                                 - int(r["tapo.stall.sacked_out"]) - int(r["tapo.stall.lost_out"]))
        test.assertEqual(int(r["tapo.stall.in_flight"]), expected_in_flight)
        test.assertTrue(0.0 <= float(r["tapo.stall.position"]) <= 1.0)
        test.assertTrue(ts.normalise_bool(r["tapo.stall.final"]))
        test.assertTrue(r["tapo.stall.hint"])
