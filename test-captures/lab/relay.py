"""The emulated link between the two TUN devices.

Per direction ("s2c": server to client, "c2s": client to server) it applies,
in this order: scripted drops and holds, random loss, a rate limit with a
drop-tail queue, then a propagation delay with jitter that never reorders.
Every packet it drops or holds is logged, with sequence numbers relative to
each side's ISN (what Wireshark shows as tcp.seq), so that labels can say
exactly what the link did.
"""

import collections
import os
import random
import select
import struct
import time

DIRECTIONS = ("s2c", "c2s")


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


class Link:
    """One direction of the link."""

    def __init__(self, delay_s, jitter_s, rate_bps, queue_pkts, loss, rng):
        self.delay_s, self.jitter_s = delay_s, jitter_s
        self.rate_bps, self.queue_pkts, self.loss = rate_bps, queue_pkts, loss
        self.rng = rng
        self.departures = collections.deque()   # serialisation end times of queued packets, seconds
        self.last_release = 0.0      # release times never go backwards: no reordering
        self.line = collections.deque()   # (release_time, packet)

    def admit(self, now, pkt, hold_until):
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
        self.line.append((release, pkt))
        return True

    def due(self, now):
        out = []
        while self.line and self.line[0][0] <= now:
            out.append(self.line.popleft()[1])
        return out

    def next_event(self):
        return self.line[0][0] if self.line else None


class Relay:
    """Moves packets between the server and client TUN descriptors."""

    def __init__(self, server_fd, client_fd, spec, seed):
        self.fd = {"s2c": server_fd, "c2s": client_fd}
        self.out_fd = {"s2c": client_fd, "c2s": server_fd}
        rng = random.Random(seed)
        self.links = {}
        for d in DIRECTIONS:
            self.links[d] = Link(
                spec.get("delay_ms", {}).get(d, 25) / 1000.0,
                spec.get("jitter_ms", {}).get(d, 0) / 1000.0,
                spec.get("rate_mbit", {}).get(d, 0) * 1e6,
                spec.get("queue_pkts", {}).get(d, 100),
                spec.get("loss", {}).get(d, 0.0),
                random.Random(rng.random()),
            )
        self.drops = [dict(d) for d in spec.get("drops", [])]
        self.holds = [dict(h, until=None) for h in spec.get("holds", [])]
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

    def _record(self, now, event, direction, conn, rel_seq, rel_ack, info, tx, **extra):
        entry = {"t": round(now - self.t0, 6), "event": event, "dir": direction,
                 "conn": conn.index, "seq": rel_seq, "ack": rel_ack,
                 "len": info[8], "flags": info[7], "tx": tx}
        entry.update(extra)
        self.log.append(entry)

    @staticmethod
    def _rule_matches(rule, now, direction, conn, rel_seq, info, tx):
        """Drop rules: "seq" (one segment), "seq_range" [lo, hi), "syn", or
        "blackout_after_seq" with "duration_ms" (every segment from the
        first one at or above that sequence, for that long)."""
        if rule.get("dir", "s2c") != direction or rule.get("conn", 0) != conn.index:
            return False
        if tx not in rule.get("tx", [1]):
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

    def _hold_until(self, now, direction, conn, rel_seq, rel_ack):
        until = 0.0
        for hold in self.holds:
            if hold.get("dir", "c2s") != direction or hold.get("conn", 0) != conn.index:
                continue
            if hold["until"] is None:
                if "after_ack" in hold and (rel_ack is None or rel_ack < hold["after_ack"]):
                    continue
                if "after_seq" in hold and (rel_seq is None or rel_seq < hold["after_seq"]):
                    continue
                hold["until"] = now + hold["hold_ms"] / 1000.0
                hold["trigger_ack"], hold["trigger_seq"] = rel_ack, rel_seq
            if now < hold["until"]:
                until = max(until, hold["until"])
        return until

    def _ingress(self, direction, pkt, now):
        if self.t0 is None:
            self.t0 = now
        self.packets[direction] += 1
        info = parse_tcp(pkt)
        link = self.links[direction]
        if info is None:
            link.admit(now, pkt, 0.0)
            return
        conn = self._connection(info, direction)
        rel_seq, rel_ack = self._relative(conn, direction, info)
        tx = 0
        if info[8] > 0 or info[7] & SYN:
            conn.tx_count[(direction, rel_seq)] += 1
            tx = conn.tx_count[(direction, rel_seq)]
        if any(self._rule_matches(r, now, direction, conn, rel_seq, info, tx) for r in self.drops):
            self._record(now, "drop", direction, conn, rel_seq, rel_ack, info, tx)
            return
        if link.loss and link.rng.random() < link.loss:
            self._record(now, "loss", direction, conn, rel_seq, rel_ack, info, tx)
            return
        hold_until = self._hold_until(now, direction, conn, rel_seq, rel_ack)
        if hold_until > now:
            self._record(now, "hold", direction, conn, rel_seq, rel_ack, info, tx,
                         release=round(hold_until - self.t0, 6))
        if not link.admit(now, pkt, hold_until):
            self._record(now, "queue-drop", direction, conn, rel_seq, rel_ack, info, tx)

    def _read_all(self, direction, now):
        fd = self.fd[direction]
        while True:
            try:
                pkt = os.read(fd, 65535)
            except BlockingIOError:
                return
            self._ingress(direction, pkt, now)

    def run(self, stop):
        """Relays until stop() returns true."""
        while not stop():
            now = time.monotonic()
            for d in DIRECTIONS:
                for pkt in self.links[d].due(now):
                    try:
                        os.write(self.out_fd[d], pkt)
                    except OSError as err:
                        self.write_errors[d] += 1   # recorded in the sidecar; never silent
                        self.last_write_error = str(err)
            events = [l.next_event() for l in self.links.values() if l.next_event() is not None]
            timeout = 0.02 if not events else max(0.0, min(min(events) - now, 0.02))
            ready, _, _ = select.select(list(self.fd.values()), [], [], timeout)
            now = time.monotonic()
            for d in DIRECTIONS:
                if self.fd[d] in ready:
                    self._read_all(d, now)
