#!/usr/bin/env python3
"""Runs TAPO over labelled captures and compares with their expected results.

    tests/corpus_check.py [DIR]        (default: test-captures/)

For every DIR/NAME.expected it runs tshark with the plugin, two-pass and
one-pass, and checks both ways: every expected stall is found with its
cause (the one-pass cause in one pass), and every stall TAPO reports is
expected.  It prints a per-cause table of expected versus found and exits
non-zero on any difference.
"""

import collections
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tshark_runner  # noqa: E402

ROOT = tshark_runner.ROOT


class Expectation:
    """One line: a frame, a range "a-b" (every stall inside has the cause,
    save at a frame that a line of its own names; at least one exists),
    "?N" (a stall at frame N, if there is one, has one of the causes) or
    "*" (every stall no other line covers has one of the causes
    "c1|c2|...", none need exist)."""

    def __init__(self, line):
        where, self.cause, self.one_pass, self.reason = line.rstrip("\n").split("\t", 3)
        self.optional = where.startswith("?")
        where = where.lstrip("?")
        self.catch_all = where == "*"
        if self.catch_all:
            self.first, self.last = 0, 2**31
        elif "-" in where:
            lo, hi = where.split("-")
            self.first, self.last = int(lo), int(hi)
        else:
            self.first = self.last = int(where)
        self.is_range = self.first != self.last

    def covers(self, frame):
        return self.first <= frame <= self.last

    def cause_for(self, two_pass):
        return self.cause if two_pass else self.one_pass

    def allows(self, cause, two_pass):
        return cause in self.cause_for(two_pass).split("|")


def read_expected(path):
    with open(path) as f:
        return [Expectation(l) for l in f if l.strip() and not l.startswith("#")]


def tapo_stalls(pcap, two_pass):
    rows = tshark_runner.stall_fields(pcap, ["frame.number", "tapo.stall.cause", "tapo.stall.final"],
                                      two_pass=two_pass)
    stalls = {}
    for frame, cause, final in rows:
        if tshark_runner.normalise_bool(final) != two_pass:
            raise AssertionError("%s frame %s: tapo.stall.final=%s in %s mode" % (
                pcap, frame, final, "two-pass" if two_pass else "one-pass"))
        stalls[int(frame)] = cause
    return stalls


def compare(name, expectations, stalls, two_pass, table):
    """Returns a list of problems; fills table[cause] = [expected, matched]."""
    problems = []
    claimed = set()
    named = {e.first for e in expectations if not e.catch_all and not e.is_range}
    for e in (e for e in expectations if not e.catch_all):
        want = e.cause_for(two_pass)
        table[want][0] += 1
        inside = {f: c for f, c in stalls.items() if e.covers(f) and not (e.is_range and f in named)}
        claimed.update(inside)
        if not inside and e.optional:
            table[want][1] += 1
            continue
        if not inside:
            problems.append("%s: frame %s: expected %s, TAPO found no stall" % (
                name, e.first if not e.is_range else "%d-%d" % (e.first, e.last), want))
            continue
        wrong = {f: c for f, c in inside.items() if not e.allows(c, two_pass)}
        if wrong:
            problems.extend("%s: frame %d: expected %s, TAPO says %s (%s)" % (
                name, f, want, c, e.reason) for f, c in sorted(wrong.items()))
        else:
            table[want][1] += 1
    rest = {f: c for f, c in stalls.items() if f not in claimed}
    for e in (e for e in expectations if e.catch_all):
        for f, c in sorted(rest.items()):
            table["(any of the allowed)"][0] += 1
            if e.allows(c, two_pass):
                table["(any of the allowed)"][1] += 1
            else:
                problems.append("%s: frame %d: TAPO says %s, which this capture cannot show (%s)"
                                % (name, f, c, e.reason))
        rest = {}
    for f in sorted(rest):
        problems.append("%s: frame %d: TAPO found an unexpected %s stall" % (name, f, rest[f]))
    return problems


LOST = {"drop", "loss", "queue-drop"}


SERVER_PORT = "8080"


def data_sender(sidecar):
    """The data sender ("server", or "client" for an upload), its packets'
    direction on the path and a test on tcp.srcport for them."""
    sender = sidecar.get("sender", "server")
    if sender == "server":
        return sender, "s2c", lambda port: port == SERVER_PORT
    return sender, "c2s", lambda port: port != SERVER_PORT


def relay_evidence(name, pcap, sidecar):
    """Checks retransmission stalls against what the relay did to the
    earlier copies of the retransmitted segment (all are captured, at the
    data sender, before the path): a DSACK (spurious, and so ack-delay)
    needs one that got through; continuous-loss needs all of them dropped;
    and a segment whose every earlier copy was dropped cannot be spurious."""
    rows = tshark_runner.stall_fields(pcap, ["frame.number", "tcp.stream", "tcp.seq_raw", "tcp.srcport",
                                             "tapo.stall.cause", "tapo.stall.retransmission",
                                             "tapo.stall.spurious"])
    sender, direction, from_sender = data_sender(sidecar)
    copies = earlier_copies(pcap, from_sender)
    log = sidecar["relay_log"]
    problems, checked = [], 0
    for frame, stream, seq, sport, cause, retrans, spurious in rows:
        if not tshark_runner.normalise_bool(retrans) or not from_sender(sport):
            continue
        checked += 1
        conn = int(stream)
        rel = (int(seq) - sidecar["isns"][conn][sender]) % 2**32   # a cut capture has no SYN
        sent = copies.get(int(frame), 0)
        # The relay numbers the copies of what occupies sequence space from
        # 1 (tx); 0 is a packet that occupies none (a pure ACK with the
        # same sequence number), or a bare FIN in a log from before the
        # relay numbered FINs: neither is a copy of this segment.
        segment_events = [e for e in log if e["conn"] == conn and e["dir"] == direction and e["seq"] == rel]
        dropped = sum(1 for e in segment_events if e["event"] in LOST and 0 < e["tx"] <= sent)
        got_through = sent > dropped
        spurious = tshark_runner.normalise_bool(spurious)
        # What the relay did to this segment, for a failure's line: enough
        # to tell a wrong verdict from a copy that began elsewhere.
        seen = ["tx %s %s (%s bytes) at %s s" % (e["tx"], e["event"], e.get("len", "?"), e.get("t", "?"))
                for e in segment_events]
        events = "; relay: %s" % (", ".join(seen) or "no event")
        if spurious and not got_through:
            problems.append("%s: frame %s: spurious (%s), but the relay dropped all %d earlier "
                            "copies of segment %d%s" % (name, frame, cause, sent, rel, events))
        if cause == "ack-delay" and not got_through:
            problems.append("%s: frame %s: ack-delay, but no earlier copy of segment %d got "
                            "through (%d earlier copies began there)%s" % (name, frame, rel, sent, events))
        if cause == "continuous-loss" and got_through:
            problems.append("%s: frame %s: continuous-loss, but an earlier copy of segment %d "
                            "got through%s" % (name, frame, rel, events))
    return problems, checked


def tcp_packets(pcap):
    """Every TCP packet of pcap, in order: one tshark run that both
    earlier_copies and quick_timer_copies read (the run is cached)."""
    out = tshark_runner.run(["-r", tshark_runner.readable(pcap), "-Y", "tcp", "-T", "fields",
                             "-e", "frame.number", "-e", "tcp.stream", "-e", "tcp.srcport", "-e", "frame.time_epoch",
                             "-e", "tcp.seq_raw", "-e", "tcp.seq", "-e", "tcp.nxtseq", "-e", "tcp.len",
                             "-e", "tcp.flags.syn", "-e", "tcp.flags.fin", "-e", "tcp.analysis.retransmission",
                             "-e", "tcp.analysis.spurious_retransmission",
                             "-e", "tcp.analysis.fast_retransmission"]).stdout
    keys = ("frame", "stream", "sport", "time", "seq_raw", "seq", "nxt", "len", "syn", "fin", "retx", "spurious",
            "fast")
    return [dict(zip(keys, (line.split("\t") + [""] * len(keys))[:len(keys)])) for line in out.splitlines()]


def earlier_copies(pcap, from_sender):
    """For each data frame of the data sender: how many earlier frames
    carried the same sequence number (in the same connection)."""
    seen, result = collections.Counter(), {}
    for q in tcp_packets(pcap):
        occupies = int(q["len"] or 0) > 0 or tshark_runner.normalise_bool(q["syn"]) or \
            tshark_runner.normalise_bool(q["fin"])
        if not occupies or not from_sender(q["sport"]):
            continue
        result[int(q["frame"])] = seen[(q["stream"], q["seq_raw"])]
        seen[(q["stream"], q["seq_raw"])] += 1
    return result


# No stall is shorter than this (the preference tapo.min_stall_ms, its
# default), seconds: spec section 3.
MIN_STALL_S = 0.010


def quick_timer_copies(pcap, from_sender):
    """The data sender's tail-loss probes seen less than the minimum stall
    duration after the connection's previous packet, whichever side sent
    it: a copy of its last segment, no loss signal (not a fast
    retransmission), and no recovery under way (its own previous packet was
    no copy: not the retransmissions that follow a timeout).  On a LAN path
    the probe fires 2 SRTT after the last segment, a few milliseconds when
    the receiver was slow to acknowledge (its ACKs of the rest may come in
    between): the kernel counts it, and by spec section 3 it ends no stall."""
    last_seen, own_copy, highest, quick = {}, {}, collections.Counter(), 0
    for q in tcp_packets(pcap):
        stream, mine, t = q["stream"], from_sender(q["sport"]), float(q["time"])
        copy = bool(q["retx"] or q["spurious"])
        if mine and copy and not q["fast"] and q["nxt"] and stream in last_seen and \
                own_copy.get(stream) is False and int(q["nxt"]) == highest[stream] and \
                t - last_seen[stream] < MIN_STALL_S:
            quick += 1
        if mine:
            own_copy[stream] = copy
            if q["nxt"]:
                highest[stream] = max(highest[stream], int(q["nxt"]))
        last_seen[stream] = t
    return quick


def kernel_agreement(name, pcap, sidecar):
    """TAPO's retransmission stalls versus the data sender's kernel counters:
    each RTO (TCPTimeouts, SYN timeouts included) and tail-loss probe
    (TCPLossProbes) ends a silence, so it should end one retransmission
    stall of that sender, but for a copy that left within the minimum
    stall duration of the connection's previous packet (quick_timer_copies)."""
    k = sidecar["kernel_counters"]
    from_sender = data_sender(sidecar)[2]
    timers = k["TcpExtTCPTimeouts"] + k["TcpExtTCPLossProbes"] - quick_timer_copies(pcap, from_sender)
    rows = tshark_runner.stall_fields(pcap, ["tapo.stall.retransmission", "tcp.srcport"])
    stalls = sum(1 for r, port in rows if tshark_runner.normalise_bool(r) and from_sender(port))
    return timers, stalls


def read_sidecar(directory, name):
    path = os.path.join(directory, name + ".lab.json")
    if not os.path.exists(path):
        return None
    import json
    with open(path) as f:
        return json.load(f)


def check_dir(directory):
    files = sorted(glob.glob(os.path.join(directory, "*.expected")))
    if not files:
        print("no .expected files in %s" % directory)
        return 1
    problems = []
    tables = {True: collections.defaultdict(lambda: [0, 0]), False: collections.defaultdict(lambda: [0, 0])}
    kernel_rows, evidence_checked = [], 0
    for path in files:
        name = os.path.basename(path)[:-len(".expected")]
        pcap = os.path.join(directory, name + ".pcap")
        expectations = read_expected(path)
        for two_pass in (True, False):
            stalls = tapo_stalls(pcap, two_pass)
            problems += compare(name + (" (two-pass)" if two_pass else " (one-pass)"),
                                expectations, stalls, two_pass, tables[two_pass])
        sidecar = read_sidecar(directory, name)
        if sidecar and "relay_log" in sidecar:
            found, checked = relay_evidence(name, pcap, sidecar)
            problems += found
            evidence_checked += checked
            timers, stalls = kernel_agreement(name, pcap, sidecar)
            mixed = any(e.catch_all for e in expectations)
            kernel_rows.append((name, timers, stalls, mixed))
            if timers != stalls and not mixed:
                problems.append("%s: the kernel counted %d RTOs and loss probes, TAPO found %d "
                                "retransmission stalls" % (name, timers, stalls))
    for two_pass in (True, False):
        table = tables[two_pass]
        print("\n%s: expected stalls (a range counts once) versus matched" % (
            "two-pass (final)" if two_pass else "one-pass (provisional)"))
        print("  %-22s %8s %8s" % ("cause", "expected", "matched"))
        for cause in sorted(table):
            exp, ok = table[cause]
            print("  %-22s %8d %8d%s" % (cause, exp, ok, "" if exp == ok else "   <-- MISMATCH"))
    print("\nKernel counters (server namespace) versus TAPO, two-pass (RTOs and probes less the copies")
    print("sent within the minimum stall duration of the previous packet):")
    print("  %-30s %16s %22s" % ("capture", "RTOs + probes", "retransmission stalls"))
    for name, timers, stalls, mixed in kernel_rows:
        note = "" if timers == stalls else ("   (mixed: see test-captures/README.md)" if mixed
                                            else "   <-- MISMATCH")
        print("  %-30s %16d %22d%s" % (name, timers, stalls, note))
    print("\n%d captures checked; %d retransmission stalls checked against the relay's drops"
          % (len(files), evidence_checked))
    for p in problems:
        print("FAIL " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(check_dir(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "test-captures")))
