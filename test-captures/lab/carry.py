"""Carries the labels of a sender-side capture to the captures of the same
run taken at the other vantage points (the client, the tap in the middle).

A packet is the same packet at every vantage when its addresses, ports, raw
sequence and acknowledgement numbers, payload length, flags, IP ID and TCP
timestamp value agree: Linux gives every packet it sends a new IP ID and,
with timestamps, a TSval of its clock, so two transmissions of the same
segment differ.  A label names the packet that ends a stall at the sender;
carried, it names the same packet where that packet was captured, with the
sender-side cause unchanged: whatever the vantage, the stall and its cause
are the sender's (spec section 1).  A label is kept as a comment
saying why when the other vantage cannot show that stall: its packet never
reached the vantage (lost before it), the capture there begins with it
(the first packet of a connection ends no stall), or the path held it after
the vantage on its way to the sender (a delay the capture point never saw).
A loss carried where the receiver's ACK of the segment was seen before the
copy and the path lost it after the vantage becomes `ack-delay`: that vantage proves the copy
unnecessary, which the sender could not know (spec rule 1.0).
A loss carried where the capture cannot prove it becomes `undetermined`:
every earlier copy of the segment was lost before the vantage and the
sender's packets carry no IP IDs there (IPv6): nothing there shows a
transmission before the one seen, and timing alone proves none (spec
section 8), so the true verdict there is that no rule holds.

    carry.py SENDER.pcap SENDER.expected OTHER.pcap OTHER.expected VANTAGE [SIDECAR.lab.json]
"""

import json
import subprocess
import sys

SERVER_PORT = "8080"
# The causes that say a transmission was lost (spec section 4, rule 1).
LOSS_CAUSES = {"f-double", "t-double", "tail", "small-cwnd", "small-rwnd", "continuous-loss",
               "large-dupthres"}
# What a vantage may call a silence that a delay after it caused: the delay
# (when the capture proves an ACK was late) or an application pause.
UNSEEN_DELAY_CAUSES = ["packet-delay", "resource-constraint", "data-unavailable"]
# Hops of the emulated path (relay.py) that lie after each vantage on the
# way from the data receiver to the data sender.
HOPS_AFTER = {("server", "receiver"): {"client", "server"}, ("server", "middle"): {"server"},
              ("client", "receiver"): {"client", "server"}, ("client", "middle"): {"client"}}

IDENTITY_FIELDS = ["frame.number", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "tcp.srcport",
                   "tcp.dstport", "tcp.seq_raw", "tcp.ack_raw", "tcp.len", "tcp.flags", "ip.id",
                   "tcp.options.timestamp.tsval"]


PACKET_FIELDS = ["frame.time_epoch", "tcp.stream"] + IDENTITY_FIELDS


def packet_args(pcap):
    """tshark's arguments for packets(): its output is parse_packets()'s input."""
    args = ["-n", "-r", pcap, "-Y", "tcp", "-T", "fields", "-E", "separator=/t", "-E", "occurrence=l"]
    for f in PACKET_FIELDS:
        args += ["-e", f]
    return args


def packets(pcap, tshark_prefix=()):
    """[(frame, time, stream, identity key)] of every TCP packet, in capture order."""
    cmd = list(tshark_prefix) + ["tshark"] + packet_args(pcap)
    return parse_packets(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def parse_packets(out):
    """packets() from tshark's output for packet_args()."""
    fields = PACKET_FIELDS
    rows = []
    for line in out.splitlines():
        row = line.split("\t")
        if len(row) == len(fields):
            rows.append((int(row[2]), float(row[0]), int(row[1]), tuple(row[3:])))
    return rows


def packet_identities(pcap, tshark_prefix=()):
    """[(frame number, identity key)] of every TCP packet, in capture order."""
    return [(f, k) for f, _, _, k in packets(pcap, tshark_prefix)]


def key_srcport(key):
    return key[IDENTITY_FIELDS.index("tcp.srcport") - 1]


def key_ack_raw(key):
    return int(key[IDENTITY_FIELDS.index("tcp.ack_raw") - 1] or 0)


def key_field(key, name):
    return key[IDENTITY_FIELDS.index(name) - 1]


def unprovable_loss(other_frame, other_rows):
    """The packet of other_frame resends a segment no earlier copy of which
    reached this capture, and its sender carries no IP IDs to count the
    copies lost before it (IPv6, or IDs left 0)."""
    keys = dict((f, k) for f, _, _, k in other_rows)
    key = keys.get(other_frame)
    if key is None or int(key_field(key, "ip.id") or "0", 16) != 0:
        return False
    src, seq = key_srcport(key), key_field(key, "tcp.seq_raw")
    return not any(f < other_frame and key_srcport(k) == src and key_field(k, "tcp.seq_raw") == seq
                   for f, k in keys.items())


class HeldPackets:
    """The data receiver's packets that the path held after a vantage on
    their way to the data sender (from the relay log)."""

    def __init__(self, sidecar, vantage):
        self.sender = sidecar.get("sender", "server")
        self.isns = sidecar.get("isns", [])
        direction = "c2s" if self.sender == "server" else "s2c"
        hops = HOPS_AFTER[(self.sender, vantage)]
        self.held = {(e["conn"], e["ack"]) for e in sidecar.get("relay_log", [])
                     if e["event"] == "hold" and e["dir"] == direction and e.get("at", "client") in hops}

    def holds(self, stream, key):
        from_server = key_srcport(key) == SERVER_PORT
        if from_server == (self.sender == "server") or stream >= len(self.isns):
            return False
        rel_ack = (key_ack_raw(key) - self.isns[stream][self.sender]) % 2**32
        return (stream, rel_ack) in self.held


def ack_seen_then_lost(other_frame, other_rows, reached_sender):
    """At this vantage, before the data sender's packet of other_frame, a
    receiver packet acknowledged all of it and never reached the sender
    (reached_sender(frame) is False: the path lost it after the vantage).
    The vantage then proves the copy unnecessary, which the sender could
    not know (spec rule 1.0)."""
    rows = {f: (s, k) for f, _, s, k in other_rows}
    if other_frame not in rows:
        return False
    stream, key = rows[other_frame]
    length = int(key_field(key, "tcp.len") or 0) + (1 if int(key_field(key, "tcp.flags"), 16) & 1 else 0)
    end = (int(key_field(key, "tcp.seq_raw")) + length) % 2**32
    src = key_srcport(key)
    for f, (s, k) in rows.items():
        if f >= other_frame or s != stream or key_srcport(k) == src or reached_sender(f):
            continue
        if (key_ack_raw(k) - end) % 2**32 < 2**30:
            return True
    return False


class FrameMap:
    """Sender-side frame numbers to the frame of the same packet elsewhere."""

    def __init__(self, sender_rows, other_rows):
        where = {}
        for frame, key in other_rows:
            where.setdefault(key, frame)
        self.to_other = {frame: where.get(key) for frame, key in sender_rows}
        self.sender_frames = [frame for frame, _ in sender_rows]
        self.key = dict(sender_rows)

    def frame(self, sender_frame):
        """The other capture's frame of that packet, or None (never got there)."""
        return self.to_other.get(sender_frame)

    def released_by(self, sender_frame):
        """The other capture's frame of the data sender's first packet after
        sender_frame that reached it (what a held ACK released)."""
        port = key_srcport(self.key[sender_frame])
        for f in self.sender_frames:
            if f > sender_frame and key_srcport(self.key[f]) != port and self.to_other.get(f):
                return self.to_other[f]
        return None

    def span(self, first, last):
        """The other capture's frames of the packets first..last that got there."""
        inside = [self.to_other[f] for f in self.sender_frames
                  if first <= f <= last and self.to_other.get(f)]
        return (min(inside), max(inside)) if inside else None


def widen_one_pass(rest):
    """Away from the sender the capture can know early what the sender
    learned only later (the receiver's own ACKs show that an original
    arrived): one pass may give the sender's provisional cause or its final
    one."""
    cause, one_pass, reason = rest.split("\t", 2)
    allowed = one_pass.split("|")
    for c in cause.split("|"):
        if c not in allowed:
            allowed.append(c)
    return "%s\t%s\t%s" % (cause, "|".join(allowed), reason)


def carry_line(line, frames, vantage, firsts=(), held=lambda frame: False, unprovable=lambda frame: False,
               ack_lost_after=lambda frame: False):
    """One expected line carried to the other vantage (a comment when that
    vantage cannot show the stall; see the module's description)."""
    where, rest = line.split("\t", 1)
    rest = widen_one_pass(rest)
    if where == "*":
        return line
    if where.startswith("?"):
        # A stall that may show there: at the other vantage too, if that
        # packet got there.
        carried = frames.frame(int(where[1:]))
        if carried is None:
            return "# sender frame %s never reached the %s: %s" % (where[1:], vantage, rest)
        return "?%d\t%s" % (carried, rest)
    if "-" in where:
        lo, hi = (int(x) for x in where.split("-"))
        span = frames.span(lo, hi)
        if span is None:
            return "# sender frames %s never reached the %s: %s" % (where, vantage, rest)
        return "%d-%d\t%s" % (span[0], span[1], rest)
    carried = frames.frame(int(where))
    if carried is None:
        return "# sender frame %s never reached the %s (lost before it): %s" % (where, vantage, rest)
    if carried in firsts:
        return "# sender frame %s begins its connection at the %s: %s" % (where, vantage, rest)
    if held(int(where)):
        note = "# sender frame %s was held after the %s on its way to the sender: %s" % (
            where, vantage, rest)
        released = frames.released_by(int(where))
        if released is None:
            return note
        cause, one_pass, _ = rest.split("\t", 2)
        allowed = "|".join([cause] + [c for c in UNSEEN_DELAY_CAUSES if c != cause])
        return note + "\n?%d\t%s\t%s\t%s" % (
            released, allowed, allowed, "the silence may show here, ended by the data that ACK "
            "released: without proof that it was late, an application pause looks the same")
    cause, _, reason = rest.split("\t", 2)
    if set(cause.split("|")) <= LOSS_CAUSES and ack_lost_after(int(where)):
        return "%d\tack-delay\tack-delay\t%s; the %s saw the receiver's ACK of it, which the path lost after " \
               "it: the copy was unnecessary (spec rule 1.0)" % (carried, reason, vantage)
    if set(cause.split("|")) <= LOSS_CAUSES and unprovable(carried):
        return "%d\tundetermined\tundetermined\t%s; at the %s every earlier copy was lost before the capture " \
               "point and no IP IDs prove it was sent (spec section 8): no rule holds" % (carried, reason, vantage)
    return "%d\t%s" % (carried, rest)


def drop_claimed_optionals(lines):
    """An optional label ("?N": a silence that may show there) yields to a
    definite label of the same frame: the packet that ends it at the other
    vantage is then also the sender's stall-ending packet (a fast
    retransmission the held ACKs released, say), and its cause is known.
    A range yields to it (corpus_check: a line of its own outranks a range)."""
    definite = set()
    for line in lines:
        where = line.split("\t", 1)[0]
        if line.startswith(("#", "?", "*")) or not where or "-" in where:
            continue
        definite.add(int(where))
    kept = []
    for line in lines:
        kept.extend(part for part in line.split("\n")
                    if not (part.startswith("?") and int(part[1:].split("\t", 1)[0]) in definite))
    return kept


def carry(sender_pcap, sender_expected, other_pcap, other_expected, vantage, sidecar=None,
          tshark_prefix=()):
    sender_rows, other_rows = packets(sender_pcap, tshark_prefix), packets(other_pcap, tshark_prefix)
    frames = FrameMap([(f, k) for f, _, _, k in sender_rows], [(f, k) for f, _, _, k in other_rows])
    firsts, seen_streams = set(), set()
    for frame, _, stream, _ in other_rows:
        if stream not in seen_streams:
            seen_streams.add(stream)
            firsts.add(frame)
    stream_of = {f: s for f, _, s, _ in sender_rows}
    holding = HeldPackets(sidecar or {}, vantage)
    back = FrameMap([(f, k) for f, _, _, k in other_rows], [(f, k) for f, _, _, k in sender_rows])
    def held(frame):
        return frame in stream_of and holding.holds(stream_of[frame], frames.key[frame])
    out = []
    with open(sender_expected) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# frame\t"):
                out.append(line)
            elif line.startswith("#"):
                out.append(line.replace(".pcap:", ".pcap (at the sender):", 1))
            elif line.strip():
                out.append(carry_line(line, frames, vantage, firsts, held,
                                      lambda frame: unprovable_loss(frame, other_rows),
                                      lambda frame: ack_seen_then_lost(frames.frame(frame), other_rows,
                                                                       lambda f: back.frame(f) is not None)))
    out = drop_claimed_optionals(out)
    out.insert(2, "# carried by test-captures/lab/carry.py to the same packets in the capture "
                  "taken at the %s" % vantage)
    with open(other_expected, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    if len(sys.argv) not in (6, 7):
        sys.exit("usage: carry.py SENDER.pcap SENDER.expected OTHER.pcap OTHER.expected VANTAGE "
                 "[SIDECAR.lab.json]")
    side = None
    if len(sys.argv) == 7:
        with open(sys.argv[6]) as f:
            side = json.load(f)
    carry(*sys.argv[1:6], sidecar=side)
