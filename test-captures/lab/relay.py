"""The emulated path between the two TUN devices, with a tap in its middle.

Each direction ("s2c": server to client, "c2s": client to server) crosses two
hops: the half of the path next to the server ("server" hop) and the half
next to the client ("client" hop), with a tap between them that records every
packet passing it, as a mirror port or a load balancer in the path would.
Each hop applies, in this order: scripted drops and holds placed at it,
random loss, a rate limit with a drop-tail queue (the bottleneck, on the
client's hop unless the link says otherwise), then its share of the
propagation delay with jitter that never reorders.  So a drop "at": "server"
happens before the tap for the server's packets (the tap never sees them)
and a drop "at": "client" after it (the tap sees the packet, the client
does not).  Every packet the path drops or holds is logged, with sequence
numbers relative to each side's ISN (what Wireshark shows as tcp.seq) and
the hop, so that labels can say exactly what the path did.
"""

import collections
import os
import random
import select
import struct
import time

DIRECTIONS = ("s2c", "c2s")
HOPS = ("server", "client")
# The hops a direction crosses, in order; the tap lies between them.
ROUTE = {"s2c": ("server", "client"), "c2s": ("client", "server")}
LINKTYPE_RAW = 101     # pcap link type of plain IP packets, as captured on a TUN device


def parse_tcp(pkt):
    """Returns (version, src, dst, sport, dport, seq, ack, flags, payload_len) or None."""
    if len(pkt) < 20:
        return None
    version = pkt[0] >> 4
    if version == 4:
        ihl = (pkt[0] & 0x0F) * 4
        if pkt[9] != 6:
            return None
        total = struct.unpack_from("!H", pkt, 2)[0]
        src, dst, off = pkt[12:16], pkt[16:20], ihl
    elif version == 6:
        if pkt[6] != 6:
            return None
        total = 40 + struct.unpack_from("!H", pkt, 4)[0]
        src, dst, off = pkt[8:24], pkt[24:40], 40
    else:
        return None
    if len(pkt) < off + 20:
        return None
    sport, dport, seq, ack, offflags = struct.unpack_from("!HHIIH", pkt, off)
    hdr = (offflags >> 12) * 4
    flags = offflags & 0x1FF
    return version, src, dst, sport, dport, seq, ack, flags, total - off - hdr


SYN, ACK, FIN, RST = 0x02, 0x10, 0x01, 0x04


class Connection:
    """ISNs of one TCP connection, to express sequence numbers relatively."""

    def __init__(self, index):
        self.index = index
        self.isn = {"c2s": None, "s2c": None}
        self.tx_count = collections.Counter()   # (dir, rel_seq) -> transmissions seen


class Hop:
    """One half of one direction of the path."""

    def __init__(self, delay_s, jitter_s, rate_bps, queue_pkts, loss, rng):
        self.delay_s, self.jitter_s = delay_s, jitter_s
        self.rate_bps, self.queue_pkts, self.loss = rate_bps, queue_pkts, loss
        self.rng = rng
        self.departures = collections.deque()   # serialisation end times of queued packets, seconds
        self.last_release = 0.0      # release times never go backwards: no reordering
        self.line = collections.deque()   # (release_time, packet, meta)

    def admit(self, now, pkt, meta, hold_until):
        """Schedules pkt; returns False when the drop-tail queue is full."""
        depart = now
        if self.rate_bps:
            while self.departures and self.departures[0] <= now:
                self.departures.popleft()
            if len(self.departures) >= self.queue_pkts:
                return False
            start = self.departures[-1] if self.departures else now
            depart = start + len(pkt) * 8.0 / self.rate_bps
            self.departures.append(depart)
        jitter = self.rng.uniform(0.0, self.jitter_s) if self.jitter_s else 0.0
        release = max(depart + self.delay_s + jitter, self.last_release, hold_until)
        self.last_release = release
        self.line.append((release, pkt, meta))
        return True

    def due(self, now):
        out = []
        while self.line and self.line[0][0] <= now:
            out.append(self.line.popleft())
        return out

    def next_event(self):
        return self.line[0][0] if self.line else None


class Tap:
    """Writes the packets passing the middle of the path to a pcap file."""

    def __init__(self, path, snaplen):
        self.file = open(path, "wb") if path else None
        self.snaplen = snaplen or 65535
        # Hops run on the monotonic clock; captures carry wall-clock times.
        self.wall_offset = time.time() - time.monotonic()
        if self.file:
            self.file.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, self.snaplen, LINKTYPE_RAW))

    def record(self, monotonic_s, pkt):
        if not self.file:
            return
        wall = monotonic_s + self.wall_offset
        sec = int(wall)
        usec = int(round((wall - sec) * 1e6))
        if usec >= 1000000:
            sec, usec = sec + 1, usec - 1000000
        data = pkt[:self.snaplen]
        self.file.write(struct.pack("<IIII", sec, usec, len(data), len(pkt)) + data)

    def close(self):
        if self.file:
            self.file.close()
            self.file = None


class PacketMeta:
    """What the path knows about one packet it carries."""

    def __init__(self, direction, info, conn, rel_seq, rel_ack, tx):
        self.direction, self.info, self.conn = direction, info, conn
        self.rel_seq, self.rel_ack, self.tx = rel_seq, rel_ack, tx


def _split_loss(p):
    """Loss per hop so that the two hops together lose a share p."""
    return 1.0 - (1.0 - p) ** 0.5


class Relay:
    """Moves packets between the server and client TUN descriptors.

    spec: "delay_ms", "jitter_ms", "rate_mbit", "queue_pkts", "loss" per
    direction; "tap_at": the share of each direction's delay and jitter on
    the server's side of the tap (default 0.5); "bottleneck": the hop with
    the rate limit ("client" by default); "drops" and "holds" (see
    _rule_matches and _hold_until), each with "at": the hop where it acts
    ("client" by default); "outages" (see _in_outage): the shared path
    down for every connection at once."""

    def __init__(self, server_fd, client_fd, spec, seed, tap_path=None, snaplen=0):
        self.fd = {"s2c": server_fd, "c2s": client_fd}
        self.out_fd = {"s2c": client_fd, "c2s": server_fd}
        rng = random.Random(seed)
        tap_at = spec.get("tap_at", 0.5)
        bottleneck = spec.get("bottleneck", "client")
        self.hops = {}
        for d in DIRECTIONS:
            delay = spec.get("delay_ms", {}).get(d, 25) / 1000.0
            jitter = spec.get("jitter_ms", {}).get(d, 0) / 1000.0
            loss = _split_loss(spec.get("loss", {}).get(d, 0.0))
            for hop in HOPS:
                share = tap_at if hop == "server" else 1.0 - tap_at
                limited = hop == bottleneck
                self.hops[(d, hop)] = Hop(
                    delay * share, jitter * share,
                    spec.get("rate_mbit", {}).get(d, 0) * 1e6 if limited else 0,
                    spec.get("queue_pkts", {}).get(d, 100), loss,
                    random.Random(rng.random()))
        self.drops = [dict(d) for d in spec.get("drops", [])]
        self.holds = [dict(h, until=None) for h in spec.get("holds", [])]
        self.outages = [dict(o) for o in spec.get("outages", [])]
        self.tap = Tap(tap_path, snaplen)
        self.conns = {}
        self.log = []
        self.t0 = None
        self.packets = collections.Counter()
        self.write_errors = collections.Counter()
        self.last_write_error = None

    def _connection(self, info, direction):
        _, src, dst, sport, dport, *_ = info
        key = (src, sport, dst, dport) if direction == "c2s" else (dst, dport, src, sport)
        conn = self.conns.get(key)
        if conn is None:
            conn = self.conns[key] = Connection(len(self.conns))
        return conn

    def _relative(self, conn, direction, info):
        seq, ack, flags = info[5], info[6], info[7]
        other = "s2c" if direction == "c2s" else "c2s"
        if flags & SYN and conn.isn[direction] is None:
            conn.isn[direction] = seq
        rel_seq = (seq - conn.isn[direction]) % 2**32 if conn.isn[direction] is not None else None
        rel_ack = None
        if flags & ACK and conn.isn[other] is not None:
            rel_ack = (ack - conn.isn[other]) % 2**32
        return rel_seq, rel_ack

    def _record(self, now, event, hop, meta, **extra):
        info = meta.info
        entry = {"t": round(now - self.t0, 6), "event": event, "dir": meta.direction, "at": hop,
                 "conn": meta.conn.index, "seq": meta.rel_seq, "ack": meta.rel_ack,
                 "len": info[8], "flags": info[7], "tx": meta.tx}
        entry.update(extra)
        self.log.append(entry)

    @staticmethod
    def _rule_matches(rule, now, hop, meta):
        """Drop rules: "seq" (one segment), "seq_range" [lo, hi), "syn", or
        "blackout_after_seq" with "duration_ms" (every segment from the
        first one at or above that sequence, for that long)."""
        info, rel_seq = meta.info, meta.rel_seq
        if rule.get("dir", "s2c") != meta.direction or rule.get("conn", 0) != meta.conn.index:
            return False
        if rule.get("at", "client") != hop or meta.tx not in rule.get("tx", [1]):
            return False
        if rule.get("syn"):
            return bool(info[7] & SYN)
        if info[8] == 0 or rel_seq is None:
            return False
        if "seq" in rule:
            return rel_seq == rule["seq"]
        if "seq_range" in rule:
            lo, hi = rule["seq_range"]
            return lo <= rel_seq < hi
        if rule.get("started") is None:
            if rel_seq < rule["blackout_after_seq"]:
                return False
            rule["started"] = now
        return now - rule["started"] < rule["duration_ms"] / 1000.0

    def _in_outage(self, now, hop, meta):
        """Outages: every TCP packet of every connection, in "dir" ("both"
        by default), at hop "at", from "at_ms" after the first packet the
        relay saw, for "duration_ms": a link of the shared path down."""
        for o in self.outages:
            if o.get("dir", "both") not in ("both", meta.direction) or o.get("at", "client") != hop:
                continue
            start = self.t0 + o["at_ms"] / 1000.0
            if start <= now < start + o["duration_ms"] / 1000.0:
                return True
        return False

    def _hold_until(self, now, hop, meta):
        """Hold rules: from the first packet with "after_ack" or "after_seq"
        at or above the given relative number, hold every packet of that
        direction at that hop for "hold_ms"."""
        until = 0.0
        for hold in self.holds:
            if hold.get("dir", "c2s") != meta.direction or hold.get("conn", 0) != meta.conn.index:
                continue
            if hold.get("at", "client") != hop:
                continue
            if hold["until"] is None:
                if "after_ack" in hold and (meta.rel_ack is None or meta.rel_ack < hold["after_ack"]):
                    continue
                if "after_seq" in hold and (meta.rel_seq is None or meta.rel_seq < hold["after_seq"]):
                    continue
                hold["until"] = now + hold["hold_ms"] / 1000.0
                hold["trigger_ack"], hold["trigger_seq"] = meta.rel_ack, meta.rel_seq
            if now < hold["until"]:
                until = max(until, hold["until"])
        return until

    def _enter_hop(self, direction, index, pkt, meta, now):
        """Puts a packet on the index-th hop of its direction, or drops it."""
        hop_name = ROUTE[direction][index]
        hop = self.hops[(direction, hop_name)]
        if meta is None:      # not TCP: carried without impairment
            hop.admit(now, pkt, None, 0.0)
            return
        if any(self._rule_matches(r, now, hop_name, meta) for r in self.drops):
            self._record(now, "drop", hop_name, meta)
            return
        if self._in_outage(now, hop_name, meta):
            self._record(now, "outage", hop_name, meta)
            return
        if hop.loss and hop.rng.random() < hop.loss:
            self._record(now, "loss", hop_name, meta)
            return
        hold_until = self._hold_until(now, hop_name, meta)
        if hold_until > now:
            self._record(now, "hold", hop_name, meta, release=round(hold_until - self.t0, 6))
        if not hop.admit(now, pkt, meta, hold_until):
            self._record(now, "queue-drop", hop_name, meta)

    def _ingress(self, direction, pkt, now):
        if self.t0 is None:
            self.t0 = now
        self.packets[direction] += 1
        info = parse_tcp(pkt)
        meta = None
        if info is not None:
            conn = self._connection(info, direction)
            rel_seq, rel_ack = self._relative(conn, direction, info)
            tx = 0
            # Every packet that occupies sequence space is counted, a bare
            # FIN included: the checks tell a FIN's copies apart by it.
            if info[8] > 0 or info[7] & (SYN | FIN):
                conn.tx_count[(direction, rel_seq)] += 1
                tx = conn.tx_count[(direction, rel_seq)]
            meta = PacketMeta(direction, info, conn, rel_seq, rel_ack, tx)
        self._enter_hop(direction, 0, pkt, meta, now)

    def _read_all(self, direction, now):
        fd = self.fd[direction]
        while True:
            try:
                pkt = os.read(fd, 65535)
            except BlockingIOError:
                return
            self._ingress(direction, pkt, now)

    def _deliver(self, direction, pkt):
        try:
            os.write(self.out_fd[direction], pkt)
        except OSError as err:
            self.write_errors[direction] += 1   # recorded in the sidecar; never silent
            self.last_write_error = str(err)

    def _advance(self, now):
        """Moves every packet whose hop is over: across the tap, or out."""
        for d in DIRECTIONS:
            first, second = (self.hops[(d, h)] for h in ROUTE[d])
            for release, pkt, meta in first.due(now):
                self.tap.record(release, pkt)
                self._enter_hop(d, 1, pkt, meta, release)
            for _, pkt, _ in second.due(now):
                self._deliver(d, pkt)

    def run(self, stop):
        """Relays until stop() returns true."""
        try:
            while not stop():
                self._advance(time.monotonic())
                events = [h.next_event() for h in self.hops.values() if h.next_event() is not None]
                now = time.monotonic()
                timeout = 0.02 if not events else max(0.0, min(min(events) - now, 0.02))
                ready, _, _ = select.select(list(self.fd.values()), [], [], timeout)
                now = time.monotonic()
                for d in DIRECTIONS:
                    if self.fd[d] in ready:
                        self._read_all(d, now)
        finally:
            self.tap.close()
