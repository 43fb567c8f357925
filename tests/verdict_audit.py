"""An expert's check of TAPO's verdicts against the packets, independent of
TAPO: every fact comes from plain TCP and IP fields that Wireshark decodes
itself (raw sequence numbers, IP IDs, SACK and D-SACK blocks, windows, its
own keep-alive analysis).  Two kinds of checks, on every stall:

- evidence links: each names a frame of the kind its name says;
- contradictions (spec section 8): a verdict the packets refute, whatever
  the rule that produced it (docs/algorithm.md, "The audit", lists the
  engine's side of each).

Shared by test_evidence (the labelled corpus) and test_audit (every
capture, the real ones included, one pass and two).
"""

import collections
import re

import tshark_runner as ts

LINKS = ["tapo.stall.orig_frame", "tapo.stall.prev_retrans_frame", "tapo.stall.loss_signal_frame",
         "tapo.stall.dsack_frame", "tapo.stall.window_frame", "tapo.stall.window_update_frame"]
STALL_FIELDS = ["frame.number", "tapo.stall.cause", "tapo.stall.rule", "tapo.stall.prev_frame",
                "tapo.stall.mss", "tapo.stall.in_flight", "tapo.stall.packets_out",
                "tapo.stall.retrans_count", "tapo.stall.first_retrans", "tapo.stall.rwnd",
                "tapo.stall.dupthres", "tapo.sender.port", "tapo.vantage", "tapo.stall.inferred",
                "tapo.stall.spurious", "tapo.stall.confidence", "tapo.stall.caveat",
                "tapo.stall.final"] + LINKS
# Spec section 4: the rule that names each cause ("undetermined" is 1.7
# after a retransmission and 7 otherwise; ack-delay is 1.0, and 1.5 in the
# paper's order).
RULES = {"f-double": {"1.1"}, "t-double": {"1.1"}, "tail": {"1.2"}, "small-rwnd": {"1.3"},
         "small-cwnd": {"1.3"}, "continuous-loss": {"1.4"}, "ack-delay": {"1.0", "1.5"},
         "large-dupthres": {"1.6"}, "undetermined": {"1.7", "7"}, "zero-window": {"2"},
         "data-unavailable": {"3"}, "resource-constraint": {"4"}, "client-idle": {"5"},
         "packet-delay": {"6"}}
RETRANSMISSION_CAUSES = {"f-double", "t-double", "tail", "small-cwnd", "small-rwnd", "continuous-loss",
                         "ack-delay", "large-dupthres"}
# The causes that say a transmission was lost.
LOSS_CAUSES = RETRANSMISSION_CAUSES - {"ack-delay"}
SERVER_CAUSES = {"data-unavailable", "resource-constraint"}
# A copy sent this long after the sender's previous transmission, with no
# loss signal since, was its timer's (spec section 3: the minimum RTO,
# 200 ms, with a margin for the path's jitter between two packets seen
# away from the sender), seconds.
TIMER_WAIT_S = 0.3
MIN_STALL_S = 0.01
# Numbers the decision line may quote, and the field each must equal.
QUOTED = [(r"\bin_flight (\d+)", "tapo.stall.in_flight"), (r"\bpackets_out (\d+)", "tapo.stall.packets_out"),
          (r"\bretrans_count (\d+)", "tapo.stall.retrans_count"), (r"\brwnd (\d+)", "tapo.stall.rwnd"),
          (r"\bdupthres (\d+)", "tapo.stall.dupthres"),
          (r"first retransmission (fast|timeout|probe)", "tapo.stall.first_retrans")]
CONFIDENCES = {"high", "medium", "low"}
# docs/causes.md, "Caveats": the closed vocabulary of tapo.stall.caveat.
CAVEATS = {"no-rtt-sample", "no-handshake", "inferred", "capture-gap", "clock", "window-scale", "audited",
           "unexplained", "bare-ack", "sender-choice", "pending-request"}
MOD = 2 ** 32
FIN, SYN, RST, ACK = 0x01, 0x02, 0x04, 0x10
# IP IDs that step by more than this between two packets of one connection
# say nothing about what it sent (docs/algorithm.md, "IP IDs").
ID_STEP_MAX = 64
# A frame the capture saw twice (a span port, an "any" capture) comes
# within this of the first, with the same IP ID; a retransmission that
# keeps its ID (some stacks do) comes a timer later, seconds.
DUPLICATE_WITHIN_S = 0.05

PACKET_FIELDS = ["frame.number", "frame.time_relative", "tcp.stream", "tcp.srcport", "tcp.dstport", "ip.src", "ipv6.src",
                 "ip.dst", "ipv6.dst",
                 "ip.id", "tcp.seq", "tcp.ack", "tcp.len", "tcp.flags", "tcp.window_size",
                 "tcp.options.sack_le", "tcp.options.sack_re", "tcp.options.sack.dsack_le",
                 "tcp.options.sack.dsack_re", "tcp.analysis.duplicate_ack", "tcp.analysis.keep_alive",
                 "tcp.analysis.retransmission"]


def before(a, b):
    """a < b in sequence space (RFC 1982 style)."""
    return 0 < (b - a) % MOD < 2 ** 31


def at_or_before(a, b):
    return a == b or before(a, b)


def ints(value):
    return [int(v, 0) for v in value.split(",") if v]


def last(value):
    """The innermost of a tunnelled packet's values."""
    return value.split(",")[-1]


def capture_fields(pcap, two_pass=True, packets_too=True):
    """One tshark run: every TCP frame (raw sequence numbers) and, on the
    stall-ending ones, TAPO's fields.  Returns (packets, stalls); with
    packets_too, packets also holds, under the key "ids", the IPv4 IDs of
    every frame of the capture, TCP or not, as (frame, ID, source)."""
    fields = (PACKET_FIELDS if packets_too else ["frame.number"]) + STALL_FIELDS[1:]
    args = ["-r", ts.readable(pcap), "-o", "tcp.relative_sequence_numbers:FALSE", "-T", "fields",
            "-E", "separator=/t"] + (["-Y", "tapo.stall"] if not packets_too else [])
    if two_pass:
        args.insert(0, "-2")
    for f in fields:
        args += ["-e", f]
    packets, stalls, ids = {}, [], []
    for line in ts.run(args).stdout.splitlines():
        v = dict(zip(fields, line.split("\t")))
        if v.get("tapo.stall.cause"):
            stalls.append({f: v[f] for f in STALL_FIELDS})
        if packets_too and v["ip.id"]:
            ids.append((int(v["frame.number"]), int(last(v["ip.id"]), 16), last(v["ip.src"])))
        if not packets_too or not v["tcp.stream"] or "," in v["tcp.stream"]:
            continue   # not TCP, or TCP in TCP: the inner connection is not checked here
        packets[int(v["frame.number"])] = {
            "time": float(v["frame.time_relative"]), "stream": int(v["tcp.stream"]),
            "port": int(v["tcp.srcport"]), "dport": int(last(v["tcp.dstport"])),
            "host": last(v["ip.src"] or v["ipv6.src"]), "peer": last(v["ip.dst"] or v["ipv6.dst"]),
            "id": int(last(v["ip.id"]), 16) if v["ip.id"] else None,
            "seq": int(v["tcp.seq"]), "ack": int(v["tcp.ack"] or 0), "len": int(v["tcp.len"] or 0),
            "flags": int(v["tcp.flags"], 16), "window": int(v["tcp.window_size"] or 0),
            "sack_le": ints(v["tcp.options.sack_le"]), "sack_re": ints(v["tcp.options.sack_re"]),
            "dsack_le": ints(v["tcp.options.sack.dsack_le"]),
            "dsack_re": ints(v["tcp.options.sack.dsack_re"]),
            "dupack": bool(v["tcp.analysis.duplicate_ack"]),
            "keep_alive": bool(v["tcp.analysis.keep_alive"]),
            "retransmission": bool(v["tcp.analysis.retransmission"]),
        }
    if packets_too:
        one_stream_per_connection(packets)
        packets["ids"] = ids
    return packets, stalls


def one_stream_per_connection(packets):
    """Numbers each connection's packets with one stream, as TAPO and
    Wireshark 4.0 split them: a new connection on the same endpoints begins
    only with a pure SYN (one with another initial sequence number: a
    resent SYN keeps its stream in every release).  Later releases also
    start a stream at a SYN-ACK with another ISN (a middlebox's or a stale
    one), which would hide the first transmissions of the data that
    follows from the checks below."""
    kept = {}       # Wireshark's stream -> the connection's (its first stream)
    current = {}    # endpoints -> the connection now on them
    for f in sorted(packets):
        p = packets[f]
        stream = p["stream"]
        if stream not in kept:
            ends = frozenset(((p["host"], p["port"]), (p["peer"], p["dport"])))
            pure_syn = p["flags"] & (SYN | ACK) == SYN
            kept[stream] = stream if pure_syn or ends not in current else current[ends]
            current[ends] = kept[stream]
        p["stream"] = kept[stream]


def seq_length(p):
    """Sequence numbers a packet occupies: its payload, SYN and FIN."""
    return p["len"] + bool(p["flags"] & SYN) + bool(p["flags"] & FIN)


def gives_up(p):
    """A reset, or a FIN with no payload: what a sender sends when it gives
    up on a chain of unanswered copies (spec section 8)."""
    return bool(p["flags"] & RST) or (bool(p["flags"] & FIN) and not p["len"])


def overlaps(p, q):
    """Two packets of one sender carry a sequence number in common."""
    if not seq_length(p) or not seq_length(q):
        return False
    return before(p["seq"], q["seq"] + seq_length(q)) and before(q["seq"], p["seq"] + seq_length(p))


def holes(p):
    """SACK blocks above the cumulative ACK (a D-SACK block is no hole)."""
    return [(le, re) for le, re in zip(p["sack_le"], p["sack_re"])
            if before(p["ack"], le) and (le, re) not in zip(p["dsack_le"], p["dsack_re"])]


def unflag_unacked_keep_alives(by_stream):
    """Wireshark flags a keep-alive by its sequence number alone (one byte,
    or none, at the next sequence number less one).  A keep-alive repeats
    a byte the peer has acknowledged (RFC 1122 4.2.3.6): one byte the peer
    has not acknowledged is a copy of it (a keystroke resent by its timer),
    data like any other."""
    for packets in by_stream.values():
        acked = {}   # port -> the highest ACK of its data that its peer sent so far
        for f, p in packets:
            if p["keep_alive"] and p["len"] == 1 and p["port"] in acked and at_or_before(acked[p["port"]], p["seq"]):
                p["keep_alive"] = False
            if p["flags"] & ACK and (p["dport"] not in acked or before(acked[p["dport"]], p["ack"])):
                acked[p["dport"]] = p["ack"]


class Checker:
    """Checks the stalls of one capture; fail(stall, what) reports."""

    def __init__(self, name, packets, fail):
        packets = dict(packets)
        self.ids = packets.pop("ids", [])   # (frame, IPv4 ID, source) of every frame
        self.name, self.pkts, self.report = name, packets, fail
        # Each endpoint's packets in each connection, in frame order.
        self.sent = collections.defaultdict(list)
        self.by_host = collections.defaultdict(list)
        self.by_stream = collections.defaultdict(list)
        for f, p in sorted(self.pkts.items()):
            self.sent[(p["stream"], p["port"])].append((f, p))
            self.by_host[p["host"]].append((f, p))
            self.by_stream[p["stream"]].append((f, p))
        unflag_unacked_keep_alives(self.by_stream)
        self.kinds = collections.Counter()

    def fail(self, stall, what):
        self.report("%s frame %s (%s): %s" % (self.name, stall["frame.number"], stall["tapo.stall.cause"], what))

    # ---- the whole check ------------------------------------------------

    def check(self, stall):
        s = int(stall["frame.number"])
        self.check_rule(stall)
        self.check_trust_fields(stall)
        if s not in self.pkts:
            return   # a tunnelled connection
        cur = self.pkts[s]
        if gives_up(cur) and stall["tapo.stall.retrans_count"] and not self.is_copy(s, cur) and \
                self.ends_unanswered_chain(s, cur):
            cur = self.chain_head(s, cur)   # the reset or bare FIN carries its chain's cause and links
        checks = {"tapo.stall.orig_frame": self.original, "tapo.stall.prev_retrans_frame": self.earlier_retx,
                  "tapo.stall.loss_signal_frame": self.loss_signal, "tapo.stall.dsack_frame": self.dsack,
                  "tapo.stall.window_frame": self.window_closed,
                  "tapo.stall.window_update_frame": self.window_opened}
        for field in LINKS:
            if stall[field]:
                frame, p = self.link(stall, field)
                if p is not None:
                    checks[field](stall, s, cur, frame, p)
                    self.kinds[field] += 1
        for contradiction in (self.double_yet_dsacked, self.no_loss_yet_hole, self.keep_alive_as_data,
                              self.reset_as_data, self.idle_close_as_server, self.copies_uncounted,
                              self.copies_never_sent, self.ids_carried_elsewhere,
                              self.retransmission_of_the_other_sender, self.loss_yet_proven_spurious,
                              self.server_cause_on_a_retransmission, self.pending_after_both_closed):
            contradiction(stall, s, cur)

    def check_capture(self, stalls):
        """What no single stall shows: a stall the packets require."""
        frames = {int(st["frame.number"]) for st in stalls}
        for f, p in sorted(self.pkts.items()):
            if f not in frames and self.timer_retransmission(f, p):
                self.report("%s frame %d: a timer's retransmission (no loss signal, %.3f s after its "
                            "sender's previous transmission) ends no stall" % (self.name, f, self.since_own(f, p)))

    # ---- evidence links -------------------------------------------------

    def sent_before(self, p, frame):
        """The packets p's sender sent in its connection before frame."""
        return [(f, q) for f, q in self.sent[(p["stream"], p["port"])] if f < frame]

    def link(self, stall, field):
        frame = int(stall[field])
        cur = self.pkts[int(stall["frame.number"])]
        p = self.pkts.get(frame)
        # The same connection (one stream however the release split it:
        # one_stream_per_connection).
        same = p is not None and p["stream"] == cur["stream"]
        if not same:
            self.fail(stall, "%s=%d is no frame of this connection" % (field, frame))
            return frame, None
        return frame, p

    def from_sender(self, stall, p):
        return p["port"] == int(stall["tapo.sender.port"])

    def original(self, stall, s, cur, o, p):
        """The first transmission of bytes that cur sends again."""
        if not (o < s and self.from_sender(stall, p) and overlaps(p, cur)):
            self.fail(stall, "orig_frame %d does not carry cur's bytes before it" % o)
        for f, q in self.sent_before(p, o):
            if overlaps(q, p) and overlaps(q, cur):
                self.fail(stall, "orig_frame %d is not the first copy: frame %d sent it before" % (o, f))

    def earlier_retx(self, stall, s, cur, r, p):
        """An earlier retransmission of cur's bytes: itself a copy of data sent before."""
        if not (r < s and self.from_sender(stall, p) and overlaps(p, cur)):
            self.fail(stall, "prev_retrans_frame %d does not carry cur's bytes before it" % r)
        copied = any(overlaps(q, p) for f, q in self.sent_before(p, r))
        # Away from the sender an original lost upstream never shows: the
        # first copy seen is then the retransmission.
        lost_upstream = stall["tapo.vantage"] != "sender" and not stall["tapo.stall.orig_frame"]
        if not (copied or lost_upstream):
            self.fail(stall, "prev_retrans_frame %d is no retransmission" % r)
        if stall["tapo.stall.orig_frame"] and not int(stall["tapo.stall.orig_frame"]) < r:
            self.fail(stall, "prev_retrans_frame %d is not after the original" % r)

    def loss_signal(self, stall, s, cur, f, p):
        """A receiver ACK that does not cover cur's first byte and reports
        data above it (SACK) or repeats itself (a duplicate ACK)."""
        if not (f < s and not self.from_sender(stall, p) and p["flags"] & ACK):
            self.fail(stall, "loss_signal_frame %d is no earlier ACK from the receiver" % f)
        if not at_or_before(p["ack"], cur["seq"]):
            self.fail(stall, "loss_signal_frame %d already acknowledges cur's bytes" % f)
        sack_above = any(before(cur["seq"], re) for re in p["sack_re"])
        if not (sack_above or p["dupack"]):
            self.fail(stall, "loss_signal_frame %d is neither a SACK above cur nor a duplicate ACK" % f)

    def dsack(self, stall, s, cur, f, p):
        """Wireshark's own D-SACK block covering cur's bytes, after cur."""
        if not self.from_sender(stall, cur):
            self.dsack_of_unseen_copy(stall, s, cur, f, p)
            return
        if not (f > s and not self.from_sender(stall, p)):
            self.fail(stall, "dsack_frame %d is no later packet of the receiver" % f)
        if not any(before(le, cur["seq"] + seq_length(cur)) and before(cur["seq"], re)
                   for le, re in zip(p["dsack_le"], p["dsack_re"])):
            self.fail(stall, "dsack_frame %d has no D-SACK block over cur's bytes" % f)

    def dsack_of_unseen_copy(self, stall, s, cur, f, p):
        """A receiver packet ends the stall: its own D-SACK block, below its
        ACK, over sender data the capture never saw (the sender sent it
        twice in the gap, both copies unseen)."""
        if f != s:
            self.fail(stall, "dsack_frame %d: the receiver's packet %d ends the stall, the D-SACK is not its own" % (f, s))
            return
        blocks = [{"seq": le, "len": (re - le) % MOD, "flags": 0}
                  for le, re in zip(p["dsack_le"], p["dsack_re"]) if at_or_before(re, p["ack"])]
        if not blocks:
            self.fail(stall, "dsack_frame %d has no D-SACK block below its ACK" % f)
        seen = [g for g, q in self.sent[self.sender_key(stall, cur)] if g < s for b in blocks if overlaps(q, b)]
        if seen:
            self.fail(stall, "dsack_frame %d D-SACKs data the capture saw sent (frame %d): no unseen copy" % (f, seen[0]))

    def receiver_packets(self, stall, first, last_frame):
        stream = self.pkts[int(stall["frame.number"])]["stream"]
        sender = int(stall["tapo.sender.port"])
        receiver = [key for key in self.sent if key[0] == stream and key[1] != sender]
        return [(f, q) for key in receiver for f, q in self.sent[key] if first <= f <= last_frame]

    def receiver_windows(self, stall, first, last_frame):
        return [(f, q) for f, q in self.receiver_packets(stall, first, last_frame)
                if q["flags"] & ACK and not q["flags"] & SYN]

    def window_closed(self, stall, s, cur, w, p):
        """The receiver's advertisement below one MSS that stayed in force
        until the stall began."""
        mss, prev = int(stall["tapo.stall.mss"]), int(stall["tapo.stall.prev_frame"])
        if not (w <= prev and not self.from_sender(stall, p) and p["window"] < mss):
            self.fail(stall, "window_frame %d is no receiver window below %d bytes before the gap" % (w, mss))
        for f, q in self.receiver_windows(stall, w, prev):
            if q["window"] >= mss:
                self.fail(stall, "window_frame %d: frame %d opened the window before the gap" % (w, f))

    def window_opened(self, stall, s, cur, u, p):
        """The first receiver packet at or after the stall's end that opened it again."""
        mss = int(stall["tapo.stall.mss"])
        if not (u >= s and not self.from_sender(stall, p) and p["window"] >= mss):
            self.fail(stall, "window_update_frame %d is no receiver window of %d bytes or more" % (u, mss))
        closed = int(stall["tapo.stall.window_frame"] or 0)
        if not closed:
            self.fail(stall, "window_update_frame %d without a closed window" % u)
        for f, q in self.receiver_windows(stall, closed, u - 1):
            if q["window"] >= mss:
                self.fail(stall, "window_update_frame %d: frame %d opened the window first" % (u, f))

    # ---- the decision line and how sure ----------------------------------

    def check_rule(self, stall):
        rule, cause = stall["tapo.stall.rule"], stall["tapo.stall.cause"]
        m = re.match(r"^(\d(?:\.\d)?) ([a-z-]+): (.+)$", rule)
        if not m or m.group(2) != cause or m.group(1) not in RULES[cause]:
            self.fail(stall, "decision line %r does not name rule %s of cause %s" % (rule, RULES[cause], cause))
            return
        said = m.group(3).split("; the tree said ")[0]   # an audit quotes the tree's own numbers after it
        for pattern, field in QUOTED:
            q = re.search(pattern, said)
            if q and q.group(1) != stall[field]:
                self.fail(stall, "decision line quotes %s, the field %s says %s" % (q.group(0), field, stall[field]))

    def check_trust_fields(self, stall):
        confidence, caveats = stall["tapo.stall.confidence"], stall["tapo.stall.caveat"]
        if confidence not in CONFIDENCES:
            self.fail(stall, "confidence %r is not one of %s" % (confidence, sorted(CONFIDENCES)))
        named = [c for c in caveats.split(",") if c]
        unknown = set(named) - CAVEATS
        if unknown:
            self.fail(stall, "caveats %s are not in the documented vocabulary" % sorted(unknown))
        if confidence == "high" and named:
            self.fail(stall, "high confidence despite caveats %s" % named)
        if confidence != "high" and not named:
            self.fail(stall, "confidence %s without a caveat saying why" % confidence)
        if stall["tapo.stall.rule"].startswith(("1.7", "7")) and confidence == "high" and "audit" in stall["tapo.stall.rule"]:
            self.fail(stall, "an audited verdict is not highly confident")

    # ---- contradictions ---------------------------------------------------

    def sender_key(self, stall, cur):
        return (cur["stream"], int(stall["tapo.sender.port"]))

    def copies_before(self, stall, s, cur):
        """Distinct earlier transmissions by the sender of cur's most often
        sent byte, as retrans_count counts a copy that coalesces segments
        (a frame the capture duplicated, same IP ID, counts once)."""
        best = []
        for offset in self.byte_offsets(cur):
            byte = dict(cur, seq=(cur["seq"] + offset) % MOD, len=1, flags=cur["flags"] & ~(FIN | SYN))
            copies = []
            for f, q in self.sent[self.sender_key(stall, cur)]:
                if f >= s or not overlaps(q, byte):
                    continue
                if any(self.same_frame(q, c) for _, c in copies):
                    continue
                copies.append((f, q))
            if len(copies) > len(best):
                best = copies
        return best

    @staticmethod
    def same_frame(q, c):
        """q is the capture's second sight of frame c."""
        close = abs(q["time"] - c["time"]) <= DUPLICATE_WITHIN_S
        return close and (q["id"] == c["id"] if q["id"] else round(q["time"], 4) == round(c["time"], 4))

    def byte_offsets(self, cur):
        """Offsets into cur where an earlier copy of the sender's may start
        (every byte's history changes only at such a start)."""
        if cur["len"] == 0:
            return [0]
        starts = {0}
        for f, q in self.sent[(cur["stream"], cur["port"])]:
            d = (q["seq"] - cur["seq"]) % MOD
            if 0 < d < cur["len"]:
                starts.add(d)
        return sorted(starts)

    def double_yet_dsacked(self, stall, s, cur):
        """A D-SACK over the whole of cur's bytes, before the sender sent
        them once more, proves a copy arrived twice: the earlier copies
        were not all lost (a double), and the ACK, not the packet, was
        late.  Only hindsight knows it (two passes)."""
        if stall["tapo.stall.cause"] not in ("f-double", "t-double") or not cur["len"]:
            return
        if not ts.normalise_bool(stall["tapo.stall.final"]):
            return
        end = cur["seq"] + cur["len"]
        for f, q in self.by_stream[cur["stream"]]:
            if f <= s:
                continue
            if q["port"] == cur["port"] and overlaps(q, cur):
                return   # sent again: a later D-SACK may answer that copy
            if q["port"] != cur["port"] and any(at_or_before(le, cur["seq"]) and at_or_before(end, re)
                                                for le, re in zip(q["dsack_le"], q["dsack_re"])):
                self.fail(stall, "frame %d D-SACKs all of cur's bytes: a copy arrived twice" % f)
                return

    def no_loss_yet_hole(self, stall, s, cur):
        """packet-delay says nothing was lost; the receiver's last ACK
        before the gap said a segment was missing (a hole below its SACK
        blocks).  The gap is at least two round trips: the sender knew."""
        if stall["tapo.stall.cause"] != "packet-delay":
            return
        prev = int(stall["tapo.stall.prev_frame"])
        acks = [q for f, q in self.receiver_packets(stall, 0, prev) if q["flags"] & ACK]
        if acks and holes(acks[-1]):
            self.fail(stall, "the receiver's last ACK before the gap SACKed above a hole %s" % (holes(acks[-1]),))

    def keep_alive_as_data(self, stall, s, cur):
        """Wireshark's keep-alive (one old byte, or none) is no data: no
        retransmission stall, no late data."""
        cause = stall["tapo.stall.cause"]
        if cur["keep_alive"] and (cause in RETRANSMISSION_CAUSES or cause == "packet-delay"):
            self.fail(stall, "cur is a keep-alive, not data")

    def reset_as_data(self, stall, s, cur):
        """A reset ends the connection: it is no data, late or resent; only
        the reset that ends a chain of its sender's unanswered copies
        carries that chain's cause (spec section 8)."""
        cause = stall["tapo.stall.cause"]
        if not cur["flags"] & RST:
            return
        if cause in ("packet-delay", "data-unavailable", "resource-constraint") or \
                (cause in RETRANSMISSION_CAUSES and not self.ends_unanswered_chain(s, cur)):
            self.fail(stall, "cur is a reset, not data")

    def chain_head(self, s, cur):
        """The reset (or bare FIN) seen as its chain's next copy: the bytes of the
        sender's last copy, at the reset's frame, copied no further."""
        mine = [q for f, q in self.sent[(cur["stream"], cur["port"])] if f < s and seq_length(q)]
        last_copy = mine[-1]
        return dict(cur, seq=last_copy["seq"], len=last_copy["len"], flags=last_copy["flags"] & ~(RST | FIN),
                    id=None, chain_end=True)

    def is_copy(self, s, cur):
        """cur carries sequence numbers its sender sent before (a FIN sent
        again is its own chain's copy, not the end of another's)."""
        return any(overlaps(q, cur) for f, q in self.sent[(cur["stream"], cur["port"])] if f < s)

    def ends_unanswered_chain(self, s, cur):
        """cur's sender's last data before cur was a copy of earlier data,
        and no ACK of the peer's since covered it."""
        mine = [(f, q) for f, q in self.sent[(cur["stream"], cur["port"])] if f < s and seq_length(q)]
        if not mine or not any(overlaps(q, mine[-1][1]) for _, q in mine[:-1]):
            return False
        f_last, last_copy = mine[-1]
        end = (last_copy["seq"] + seq_length(last_copy)) % MOD
        theirs = [q for f, q in self.by_stream[cur["stream"]] if f_last < f < s and q["port"] != cur["port"]]
        return not any(q["flags"] & ACK and at_or_before(end, q["ack"]) for q in theirs)

    def loss_yet_proven_spurious(self, stall, s, cur):
        """A cause that says a copy was lost, on a retransmission the packets
        prove unnecessary (spec rule 1.0): the receiver's ACK of all of
        cur's bytes, or a D-SACK of them, captured before cur (and in two
        passes a D-SACK after it, before any later copy)."""
        if stall["tapo.stall.cause"] not in LOSS_CAUSES or cur["flags"] & RST or not seq_length(cur):
            return
        end = (cur["seq"] + seq_length(cur)) % MOD
        final = ts.normalise_bool(stall["tapo.stall.final"])
        for f, q in self.by_stream[cur["stream"]]:
            if f > s and q["port"] == cur["port"] and overlaps(q, cur):
                return   # sent again: a later D-SACK may answer that copy
            if q["port"] == cur["port"] or (f > s and not final):
                continue
            acked = f < s and q["flags"] & ACK and at_or_before(end, q["ack"]) and \
                before(cur["seq"], q["ack"]) and (q["ack"] - cur["seq"]) % MOD < 2 ** 30
            dsacked = any(at_or_before(le, cur["seq"]) and at_or_before(end, re)
                          for le, re in zip(q["dsack_le"], q["dsack_re"]))
            if acked or dsacked:
                self.fail(stall, "frame %d %s all of cur's bytes %s cur: the copy was not needed, no loss"
                          % (f, "acknowledged" if acked else "D-SACKs", "before" if f < s else "after"))
                return

    def server_cause_on_a_retransmission(self, stall, s, cur):
        """A retransmission (Wireshark's own flag, data that is no
        keep-alive) is never a server cause: the server had produced that
        data already."""
        if stall["tapo.stall.cause"] not in SERVER_CAUSES or not cur["len"] or cur["keep_alive"]:
            return
        # Wireshark's flag alone can be misled (a stray SYN-ACK with another
        # ISN): the copy must be in the capture.
        copied = [f for f, q in self.sent[(cur["stream"], cur["port"])] if f < s and overlaps(q, cur)]
        if cur["retransmission"] and copied:
            self.fail(stall, "cur resends data of frame %d: a retransmission, not the server's late data" % copied[0])

    def pending_after_both_closed(self, stall, s, cur):
        """Once both endpoints sent their FIN no request waits for an
        answer: no server cause, and no stall left unexplained that an
        idle close explains."""
        rule = stall["tapo.stall.rule"]
        if not (stall["tapo.stall.cause"] in SERVER_CAUSES or rule.startswith("7 ")):
            return
        fins = {q["port"] for f, q in self.by_stream[cur["stream"]] if f < s and q["flags"] & FIN}
        if len(fins) >= 2:
            self.fail(stall, "both endpoints had sent their FIN before cur: nothing was pending")

    # ---- stalls the packets require ----------------------------------------

    def since_own(self, f, p):
        """Capture time since p's sender's previous transmission (data,
        SYN or FIN) in its connection."""
        earlier = [q for g, q in self.sent[(p["stream"], p["port"])] if g < f and seq_length(q)]
        return p["time"] - earlier[-1]["time"] if earlier else 0.0

    def timer_retransmission(self, f, p):
        """p resends data, a SYN or a FIN of its sender's with no loss
        signal since that was last sent (no duplicate ACK, no SACK above
        it), the minimum RTO after its sender's previous transmission and
        at least the minimum stall duration after the connection's
        previous packet: its timer's, so a stall (spec section 3)."""
        if not p["retransmission"] or not seq_length(p) or p["keep_alive"] or p["flags"] & RST:
            return False   # Wireshark flags every copy of data sent before
        mine = [(g, q) for g, q in self.sent[(p["stream"], p["port"])] if g < f]
        copies = [(g, q) for g, q in mine if overlaps(q, p)]
        if not copies or self.since_own(f, p) < TIMER_WAIT_S:
            return False
        if any(q["id"] is not None and q["id"] == p["id"] for _, q in copies):
            return False   # the same packet seen twice
        last_sent = copies[-1][0]
        stream = [(g, q) for g, q in self.by_stream[p["stream"]] if g < f]
        if not stream or p["time"] - stream[-1][1]["time"] < MIN_STALL_S:
            return False
        for g, q in stream:
            if g <= last_sent or q["port"] == p["port"]:
                continue
            if q["dupack"] or any(before(p["seq"], re) for re in q["sack_re"]):
                return False   # a loss signal: a fast retransmission, not a timer's
        return True

    def idle_close_as_server(self, stall, s, cur):
        """The sender's FIN after all it had sent was acknowledged and the
        receiver asked nothing more: an idle connection closed, not a
        server short of resources nor late packets."""
        if stall["tapo.vantage"] != "sender":
            return   # elsewhere data lost upstream may have been outstanding
        if not (cur["flags"] & FIN and self.from_sender(stall, cur)) or cur["len"] > 100:
            return
        if stall["tapo.stall.cause"] not in ("resource-constraint", "packet-delay"):
            return
        prev = int(stall["tapo.stall.prev_frame"])
        mine = [q for f, q in self.sent[self.sender_key(stall, cur)] if f <= prev and not q["keep_alive"]]
        theirs = self.receiver_packets(stall, 0, prev)
        if not mine or not theirs:
            return
        end = max((q["seq"] + seq_length(q) for q in mine), key=lambda x: (x - mine[0]["seq"]) % MOD)
        acked = any(q["flags"] & ACK and at_or_before(end, q["ack"]) for _, q in theirs)
        last_data = max((f for f, q in self.sent[self.sender_key(stall, cur)] if f <= prev and q["len"]),
                        default=0)
        asked = any(q["len"] for f, q in theirs if f > last_data)
        if acked and not asked:
            self.fail(stall, "an idle close: all the sender's data was acknowledged and nothing asked since")

    def copies_uncounted(self, stall, s, cur):
        """Copies of cur's bytes that reached the capture point are
        retransmissions the count must include."""
        if stall["tapo.stall.cause"] not in RETRANSMISSION_CAUSES or not stall["tapo.stall.retrans_count"]:
            return
        copies = len(self.copies_before(stall, s, cur)) - (1 if cur.get("chain_end") else 0)
        if int(stall["tapo.stall.retrans_count"]) < copies:
            self.fail(stall, "retrans_count %s, yet %d earlier copies of cur's bytes were captured"
                      % (stall["tapo.stall.retrans_count"], copies))

    def copies_never_sent(self, stall, s, cur):
        """Copies lost before the capture point need packets, and proof of
        them (spec section 8): the sender's IP IDs from its last copy seen
        to cur must skip one ID per copy, an ID no other packet of the
        capture carried; where they step by one, it sent nothing in
        between.  Without IDs nothing proves a copy."""
        if stall["tapo.stall.cause"] not in RETRANSMISSION_CAUSES or not stall["tapo.stall.retrans_count"]:
            return
        copies = self.copies_before(stall, s, cur)
        # The retransmissions captured before cur: every copy seen but the
        # original, when TAPO says it saw the original (orig_frame; whether
        # that link names the first copy is checked above).
        original_seen = bool(stall["tapo.stall.orig_frame"]) or (copies and stall["tapo.vantage"] == "sender")
        seen_retransmissions = len(copies) - (1 if original_seen and copies else 0)
        cur_copies = 0 if cur.get("chain_end") else 1   # a reset ending a chain is no copy itself
        claimed_unseen = int(stall["tapo.stall.retrans_count"]) - cur_copies - seen_retransmissions
        if claimed_unseen <= 0 or cur.get("chain_end"):
            return
        start = copies[-1][0] if copies else None
        mine = [(f, q) for f, q in self.sent[self.sender_key(stall, cur)]
                if (start is None or f >= start) and f <= s]
        if start is None:
            mine = mine[-2:]
        ids = [q["id"] for _, q in mine]
        if len(ids) < 2 or any(i is None for i in ids):
            self.fail(stall, "retrans_count %s counts %d copies never captured, and no IP IDs prove them"
                      % (stall["tapo.stall.retrans_count"], claimed_unseen))
            return
        steps = [(b - a) % 65536 for a, b in zip(ids, ids[1:])]
        if all(step == 1 for step in steps):
            self.fail(stall, "retrans_count %s counts %d copies never captured, yet the sender's IP IDs "
                      "step by one from frame %d to cur: it sent nothing in between"
                      % (stall["tapo.stall.retrans_count"], claimed_unseen, mine[0][0]))
            return
        # Timing never proves a copy: each needs an ID no other packet took.
        proven = 0
        for (fa, qa), (fb, qb) in zip(mine, mine[1:]):
            step = (qb["id"] - qa["id"]) % 65536
            if 1 < step <= ID_STEP_MAX + 1:
                proven += step - 1 - len(self.carried_between(fa, qa["id"], fb, qb["id"]))
        if proven < claimed_unseen:
            self.fail(stall, "retrans_count %s counts %d copies never captured; the sender's IP IDs from frame "
                      "%d prove %d unseen packets" % (stall["tapo.stall.retrans_count"], claimed_unseen,
                                                      mine[0][0], proven))

    def carried_between(self, f0, id0, f1, id1):
        """IDs strictly between id0 and id1 that some other frame of the
        capture, whatever its addresses, carried between frames f0 and f1."""
        gap = (id1 - id0) % 65536 - 1
        return {i for f, i, _ in self.ids if f0 < f < f1 and 0 < (i - id0) % 65536 <= gap}

    def ids_carried_elsewhere(self, stall, s, cur):
        """A count of unseen packets from the IDs missing since the sender's
        previous packet is proven only where no other packet of the
        capture carried one of them (spec section 8): hosts number all
        their connections from one counter, VPN endpoints many
        addresses'."""
        unseen_claimed = stall["tapo.stall.inferred"]
        if "IP IDs" not in unseen_claimed or "lost before the capture point" not in unseen_claimed \
                or cur["id"] is None:
            return
        mine = [(f, q) for f, q in self.sent[self.sender_key(stall, cur)] if f < s and q["id"] is not None]
        if not mine:
            return
        f0, q0 = mine[-1]
        gap = (cur["id"] - q0["id"]) % 65536 - 1
        if gap <= 0 or gap > ID_STEP_MAX:
            return
        elsewhere = self.carried_between(f0, q0["id"], s, cur["id"])
        if elsewhere:
            self.fail(stall, "of the %d IP IDs missing since frame %d, %d were carried by other packets of the "
                      "capture: they count no unseen packet of this sender" % (gap, f0, len(elsewhere)))

    def retransmission_of_the_other_sender(self, stall, s, cur):
        """Data Wireshark itself calls a retransmission, sent by the
        endpoint that is not the analysed sender, is a stall of its own
        sender (both directions are analysed)."""
        if cur["len"] and cur["retransmission"] and not cur["keep_alive"] and not self.from_sender(stall, cur) \
                and "resent its own data" in stall["tapo.stall.rule"]:
            self.fail(stall, "cur retransmits the receiver's own data: that endpoint is this stall's sender")


def audit_capture(name, pcap, fail, two_pass=True):
    """Checks every stall of pcap; returns the Checker (for its link counts)
    and the number of stalls."""
    packets, stalls = capture_fields(pcap, two_pass=two_pass)
    checker = Checker(name, packets, fail)
    for stall in stalls:
        checker.check(stall)
    checker.check_capture(stalls)
    return checker, len(stalls)
