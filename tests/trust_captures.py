"""Captures built packet by packet for the verdicts experts refuted on real
captures (issue 18, patterns 1-14; docs/algorithm.md, "The audit").  Each
builder says how its capture was made, and test_trust.py asserts what
follows from that, not what the engine happens to say.

Raw IP link type.  The server (10.0.0.1:80) answers a client
(10.0.0.2:40000); where the capture point sits is set by the handshake's
timing (spec section 1): at the server the SYN-ACK follows the SYN at once,
at the client the ACK follows the SYN-ACK at once, in the middle both wait
half a round trip.

    python3 tests/trust_captures.py OUT_DIR [NAME...]     writes NAME.pcap files
"""

import os
import sys

import pcapfile
from pcapfile import ACK, FIN, PSH, RST, SYN, Connection, tcp_options

CLIENT, SERVER = 0, 1
MSS = 1000


class Flow:
    """One connection as a capture point saw it: each side's next new
    sequence number and IP ID, TCP timestamps on a 1 kHz clock if asked."""

    def __init__(self, client_port=40000, timestamps=False, client_host="10.0.0.2"):
        self.conn = Connection(client=(client_host, client_port), server=("10.0.0.1", 80))
        self.conn.ip_id = [1, 30001]    # two hosts' counters, far apart
        self.next_seq = [1, 1]
        self.received = [1, 1]          # the next byte each side expects of the other
        self.timestamps = timestamps
        self.last_tsval = [0, 0]        # each side's latest TSval, to echo
        self.tsvals = [[], []]          # each side's (sent at, TSval), to echo what had arrived
        self.id_steps = [None, None]    # per side, an iterator of IP ID steps (None: one by one)
        self.records = []

    def handshake(self, t, rtt, at, sack=True):
        """at: "server", "client" or "middle"; sack: both offer SACK."""
        syn_wait, ack_wait = {"server": (0.0001, rtt), "client": (rtt, 0.0001),
                              "middle": (rtt / 2, rtt / 2)}[at]
        ts = (lambda side, when: (self.tsval(side, when), self.last_tsval[1 - side])) if self.timestamps \
            else (lambda side, when: None)
        opts = lambda side, when: tcp_options(mss=MSS, wscale=7, sack_perm=sack, ts=ts(side, when))
        self.add(t, self.conn.packet(CLIENT, 0, 0, SYN, options=opts(CLIENT, t), ip_id=self.id(CLIENT)))
        t += syn_wait
        self.add(t, self.conn.packet(SERVER, 0, 1, SYN | ACK, options=opts(SERVER, t), ip_id=self.id(SERVER)))
        t += ack_wait
        self.send(t, CLIENT, 0, window=512)
        return t

    # ---- what each side sends -------------------------------------------

    def tsval(self, side, sent_at):
        # Each host's clock: 1 tick per millisecond of its own send time.
        self.last_tsval[side] = int(round(sent_at * 1000)) + (7000 if side == SERVER else 3000)
        self.tsvals[side].append((sent_at, self.last_tsval[side]))
        return self.last_tsval[side]

    def echo(self, side, heard_by):
        """The TSval side echoes: the other side's latest one sent by heard_by
        (None: the latest of all)."""
        sent = [v for at, v in self.tsvals[1 - side] if heard_by is None or at <= heard_by]
        return sent[-1] if sent else 0

    def id(self, side, ip_id=None):
        if ip_id is None:
            ip_id = self.conn.ip_id[side]
        step = next(self.id_steps[side], 1) if self.id_steps[side] else 1
        self.conn.ip_id[side] = ip_id + step
        return ip_id

    def add(self, t, packet):
        self.records.append((t, packet))

    def send(self, t, side, length, seq=None, flags=ACK, ack=None, sack=(), ip_id=None, sent_at=None,
             window=512, payload=None, heard_by=None):
        """A packet from side at capture time t; seq defaults to new data.
        sent_at: when the sender sent it, for its TSval (default t);
        heard_by: it echoes the other side's TSvals sent until then (default:
        all so far).  Returns the relative sequence number it carried."""
        if seq is None:
            seq = self.next_seq[side]
        end = seq + length + (1 if flags & FIN else 0)
        self.next_seq[side] = max(self.next_seq[side], end)
        ack = self.received[side] if ack is None else ack
        options = b""
        if self.timestamps or sack:
            ts = (self.tsval(side, t if sent_at is None else sent_at), self.echo(side, heard_by)) \
                if self.timestamps else None
            options = tcp_options(ts=ts, sack=[(self.conn.isn[1 - side] + l, self.conn.isn[1 - side] + r)
                                               for l, r in sack])
        data = payload if payload is not None else b"x" * length
        self.add(t, self.conn.packet(side, seq, ack, flags | (PSH if length else 0), window=window,
                                     payload=data, options=options, ip_id=self.id(side, ip_id)))
        return seq

    def deliver(self, side, upto):
        """side has now received the other side's bytes up to upto."""
        self.received[side] = max(self.received[side], upto)

    def request(self, t, length=100):
        seq = self.send(t, CLIENT, length)
        self.deliver(SERVER, seq + length)
        return seq

    def write(self, path):
        pcapfile.write_pcap(path, sorted(self.records, key=lambda r: r[0]))


def exchange(f, t, rtt, segments, at):
    """A request at t and a response of segments, delivered and
    acknowledged, seen at the capture point at: "server", "client" or
    "middle".  Returns the time of the client's ACK."""
    to_response, to_ack = {"server": (0.001, rtt), "client": (rtt, 0.0001),
                           "middle": (rtt / 2 + 0.001, rtt / 2)}[at]
    f.request(t)
    t += to_response
    for _ in range(segments):
        f.send(t, SERVER, MSS)
        t += 0.0001
    f.deliver(CLIENT, f.next_seq[SERVER])
    t += to_ack
    f.send(t, CLIENT, 0)
    return t


# ---- the patterns -----------------------------------------------------------

def p01_consecutive_ids():
    """Pattern 1.  In the middle of the path: the server's host numbers its
    packets from one counter shared with other connections (its IDs here
    jump by 3 to 9), then the response's last segment passes the capture
    point and is lost beyond it, and the server's timer resends it 18 s
    later with the very next ID: nothing was sent in between, it is the
    first retransmission (a tail loss), whatever an RTO schedule fitted
    to 18 s would count."""
    f = Flow()
    f.id_steps[SERVER] = iter([4, 7, 3, 9, 5, 6, 3, 8, 4, 7])
    t = f.handshake(0.0, 0.1, "middle")
    t = exchange(f, t + 0.1, 0.1, 4, "middle")
    t = exchange(f, t + 0.1, 0.1, 4, "middle")
    f.id_steps[SERVER] = None
    f.request(t + 0.05)
    lost = f.send(t + 0.1, SERVER, MSS)
    f.send(t + 18.1, SERVER, MSS, seq=lost)
    f.deliver(CLIENT, lost + MSS)
    f.send(t + 18.15, CLIENT, 0)
    return f


def p02_keep_alive_then_fin():
    """Pattern 2.  Captured at the server mid-stream (no handshake): the
    server's keep-alive (one old byte), the client's ACK, and 14 s later the
    server closes the idle connection.  Nothing was outstanding but the
    probe, no request pending: the client was idle."""
    f = Flow()
    f.next_seq = [1001, 50001]
    f.received = [50001, 1001]
    f.send(100.0, SERVER, 1, seq=50000)
    f.send(100.05, CLIENT, 0)
    f.send(114.0, SERVER, 0, flags=ACK | FIN)
    f.deliver(CLIENT, 50002)
    f.send(114.05, CLIENT, 0)
    return f


def p03_hole_no_retransmission():
    """Pattern 3.  At the server: of six segments the second is missing at
    the client (its SACK blocks show the hole), and no retransmission
    follows; 10 s later the client acknowledges everything.  A stall with a
    known hole is no packet-delay ("no loss"), and nothing in the capture
    says what healed it."""
    f = Flow()
    t = f.handshake(0.0, 0.05, "server")
    t = exchange(f, t + 0.05, 0.05, 2, "server")
    f.request(t + 0.05)
    first = f.next_seq[SERVER]
    for i in range(6):
        f.send(t + 0.06 + i * 0.0001, SERVER, MSS)
    f.send(t + 0.11, CLIENT, 0, ack=first + MSS, sack=[(first + 2 * MSS, first + 6 * MSS)])
    f.deliver(CLIENT, first + 6 * MSS)
    f.send(t + 10.11, CLIENT, 0)
    return f


def p04_double_dsacked():
    """Pattern 4.  At the server: the response's last segment arrives but
    the client's ACKs are lost on the way back; the server's timer resends
    it twice (0.3 s, then 0.6 s later), and the client's ACK of the second
    copy carries a D-SACK of the whole segment.  The capture would be the
    same had the segment itself been lost and the first copy filled the
    hole (its ACK lost): a D-SACK reports one duplicate's arrival, the
    copy sent last (the lab's relay showed both).  So the second copy is
    proven unnecessary (ack-delay), the first is not (tail: the last
    segment, resent by the timer); in one pass, before the D-SACK, the
    second copy is a timeout double."""
    f = Flow()
    t = f.handshake(0.0, 0.05, "server")
    t = exchange(f, t + 0.05, 0.05, 4, "server")
    f.request(t + 0.05)
    last = f.send(t + 0.06, SERVER, MSS)
    f.send(t + 0.36, SERVER, MSS, seq=last)
    f.send(t + 0.96, SERVER, MSS, seq=last)
    f.deliver(CLIENT, last + MSS)
    f.send(t + 1.01, CLIENT, 0, sack=[(last, last + MSS)])
    return f


def p05_links_of_a_double():
    """Pattern 5.  At the server: of eight segments the first is lost; three
    SACKs bring its fast retransmission, which is lost too; the timer
    resends it again: an f-double whose links are the original, the fast
    retransmission and the first SACK."""
    f = Flow()
    t = f.handshake(0.0, 0.05, "server")
    t = exchange(f, t + 0.05, 0.05, 4, "server")
    f.request(t + 0.05)
    first = f.next_seq[SERVER]
    for i in range(8):
        f.send(t + 0.06 + i * 0.0001, SERVER, MSS)
    for k in range(3):
        f.send(t + 0.111 + k * 0.0001, CLIENT, 0, ack=first, sack=[(first + MSS, first + (k + 2) * MSS)])
    f.send(t + 0.1114, SERVER, MSS, seq=first)
    for k in range(3, 7):
        f.send(t + 0.112 + k * 0.0001, CLIENT, 0, ack=first, sack=[(first + MSS, first + (k + 2) * MSS)])
    f.send(t + 0.6, SERVER, MSS, seq=first)
    f.deliver(CLIENT, first + 8 * MSS)
    f.send(t + 0.65, CLIENT, 0)
    return f


def p06_lost_request():
    """Pattern 6.  At the client: its request is lost on the way; its timer
    resends it after 0.3 s (lost again) and after 0.9 s; the server then
    answers with a large response.  The stalls are the client's own (the
    initiator sends the data they delay): a tail loss, then a timeout
    double."""
    f = Flow()
    t = f.handshake(0.0, 0.05, "client")
    t = exchange(f, t + 0.05, 0.05, 20, "client")
    req = f.send(t + 0.05, CLIENT, 300)
    f.send(t + 0.35, CLIENT, 300, seq=req)
    f.send(t + 0.95, CLIENT, 300, seq=req)
    f.deliver(SERVER, req + 300)
    t += 1.0
    for i in range(20):
        f.send(t + i * 0.0001, SERVER, MSS)
    f.deliver(CLIENT, f.next_seq[SERVER])
    f.send(t + 0.003, CLIENT, 0)
    return f


def p07_shared_id_counter():
    """Pattern 7.  At the server: the client's host numbers all its packets
    from one counter, so its IDs on this connection jump by 5 to 120 (its
    other connections are not captured).  After one request and 5 s of
    idleness it sends a new request, 40 IDs on: new data never sent
    before, the server's stall a client-idle one, no retransmission; and
    likewise for the requests after it."""
    f = Flow()
    f.id_steps[CLIENT] = iter([5, 17, 9, 40, 33, 120, 11, 70, 25, 6, 90, 14, 50, 60, 21, 8, 45])
    t = f.handshake(0.0, 0.05, "server")
    t = exchange(f, t + 0.05, 0.05, 3, "server")
    t = exchange(f, t + 5.0, 0.05, 3, "server")
    for _ in range(3):
        t = exchange(f, t + 0.2, 0.05, 3, "server")
    t = exchange(f, t + 5.0, 0.05, 3, "server")
    return f


def p08_partial_dsack():
    """Pattern 8.  At the server: of two 500-byte segments the first is lost
    and the client's SACK of the second is lost on its way back; the
    server's timer resends both bytes at once in one 1000-byte copy.  The
    client's ACK jumps past it (the copy filled the hole) with a D-SACK of
    its second half only: the retransmission was needed, not spurious
    (a tail loss)."""
    f = Flow()
    t = f.handshake(0.0, 0.05, "server")
    t = exchange(f, t + 0.05, 0.05, 4, "server")
    f.request(t + 0.05)
    a = f.send(t + 0.06, SERVER, 500)
    f.send(t + 0.0601, SERVER, 500)
    f.send(t + 0.36, SERVER, 1000, seq=a)
    f.deliver(CLIENT, a + 1000)
    f.send(t + 0.41, CLIENT, 0, sack=[(a + 500, a + 1000)])
    return f


def p09_karn():
    """Pattern 9.  At the server, without SACK: of two segments the first is
    lost and resent five times (0.3 s to 4.8 s apart; the client's
    duplicate ACK says the second arrived) before one cumulative ACK covers
    both.  That ACK says nothing of the round trip (Karn: it acknowledges
    resent data), which stays 50 ms.  1 s later the server answers the
    next request only after a 1.5 s pause: a stall (data-unavailable) that
    a round trip taken from the second segment's send time would hide."""
    f = Flow()
    t = f.handshake(0.0, 0.05, "server", sack=False)
    t = exchange(f, t + 0.05, 0.05, 4, "server")
    f.request(t + 0.05)
    seg = f.send(t + 0.06, SERVER, MSS)
    f.send(t + 0.0601, SERVER, MSS)
    f.send(t + 0.11, CLIENT, 0)
    at = t + 0.06
    for backoff in (0.3, 0.6, 1.2, 2.4, 4.8):
        at += backoff
        f.send(at, SERVER, MSS, seq=seg)
    f.deliver(CLIENT, seg + 2 * MSS)
    f.send(at + 0.05, CLIENT, 0)
    t = at + 1.0
    f.request(t)
    f.send(t + 1.5, SERVER, MSS)
    f.deliver(CLIENT, f.next_seq[SERVER])
    f.send(t + 1.55, CLIENT, 0)
    return f


def p10_acks_on_their_way():
    """Pattern 10.  At the client, 100 ms from the server (TCP timestamps):
    the server sends six segments; the first is lost, the other five wait
    in a queue and reach the client just before the server's timer resends
    the first.  The client's SACKs of them leave microseconds before that
    copy arrives: the server had six segments out and no SACK when it
    resent (in flight 6)."""
    f = Flow(timestamps=True)
    t = f.handshake(0.0, 0.1, "client")
    t = exchange(f, t + 0.05, 0.1, 4, "client")
    f.request(t)
    sent = t + 0.05
    first = f.next_seq[SERVER]
    f.next_seq[SERVER] += MSS               # the first is lost before the capture point
    arrive = sent + 0.05 + 0.99
    for i in range(1, 6):
        f.send(arrive + i * 0.0001, SERVER, MSS, sent_at=sent, heard_by=sent - 0.05)
        f.send(arrive + i * 0.0001 + 0.00001, CLIENT, 0, ack=first,
               sack=[(first + MSS, first + (i + 1) * MSS)])
    f.send(sent + 1.0 + 0.05, SERVER, MSS, seq=first, sent_at=sent + 1.0, heard_by=sent + 1.0 - 0.05)
    f.deliver(CLIENT, first + 6 * MSS)
    f.send(sent + 1.0501, CLIENT, 0)
    return f


def p11_copies_seen():
    """Pattern 11.  In the middle of the path (TCP timestamps): a segment
    and three copies pass the capture point, 0.53, 1.06 and 2.11 s apart
    by the server's own clock, and the first three are lost beyond it.
    The second copy is the segment's second retransmission, the third its
    third: timeout doubles, whatever the capture's clock says."""
    f = Flow(timestamps=True)
    t = f.handshake(0.0, 0.1, "middle")
    t = exchange(f, t + 0.1, 0.1, 4, "middle")
    f.request(t + 0.05)
    seg = f.send(t + 0.1, SERVER, MSS)
    at = t + 0.1
    for backoff in (0.53, 1.06, 2.11):
        at += backoff
        f.send(at, SERVER, MSS, seq=seg)
    f.deliver(CLIENT, seg + MSS)
    f.send(at + 0.1, CLIENT, 0)
    return f


def p12_ids_of_other_packets():
    """Pattern 12.  In the middle of the path: the server's IDs step by one.
    It sends four segments (the first lost beyond the capture point), then
    its ACK of the client's next data and a probe of the fourth segment,
    both lost before the capture point (two IDs missing); its timer then
    resends the first segment.  The missing IDs were those two packets,
    not copies of the first segment: its first retransmission."""
    f = Flow()
    t = f.handshake(0.0, 0.1, "middle")
    t = exchange(f, t + 0.1, 0.1, 4, "middle")
    t = exchange(f, t + 0.2, 0.1, 4, "middle")
    f.request(t + 0.05)
    first = f.next_seq[SERVER]
    for i in range(4):
        f.send(t + 0.1 + i * 0.0001, SERVER, MSS)
    f.deliver(CLIENT, first)
    f.send(t + 0.15, CLIENT, 0, ack=first, sack=[(first + MSS, first + 4 * MSS)])
    f.send(t + 0.16, CLIENT, 50)
    f.deliver(SERVER, f.next_seq[CLIENT])
    f.id(SERVER)                            # the server's ACK of those 50 bytes: lost
    f.id(SERVER)                            # its probe of the fourth segment: lost
    f.send(t + 0.5, SERVER, MSS, seq=first)
    f.deliver(CLIENT, first + 4 * MSS)
    f.send(t + 0.55, CLIENT, 0)
    return f


def p13_idle_close():
    """Pattern 13a.  At the server: a response fully acknowledged, then 3 s
    later the server's TLS close_notify (31 bytes) with its FIN, its IDs
    consecutive: it closed an idle connection (client-idle), no server
    short of resources."""
    f = Flow()
    t = f.handshake(0.0, 0.05, "server")
    t = exchange(f, t + 0.05, 0.05, 6, "server")
    f.send(t + 3.0, SERVER, 31, flags=ACK | FIN)
    f.deliver(CLIENT, f.next_seq[SERVER])
    f.send(t + 3.05, CLIENT, 0, flags=ACK | FIN)
    f.deliver(SERVER, f.next_seq[CLIENT])
    f.send(t + 3.0501, SERVER, 0)
    return f


def _unanswered_request():
    """At the client, 50 ms from the server: after an answered exchange its
    300-byte request goes unanswered through three timer retries (0.3,
    0.6 and 1.2 s apart).  Returns the flow, the request's sequence number
    and the time of the last retry."""
    f = Flow()
    t = f.handshake(0.0, 0.05, "client")
    t = exchange(f, t + 0.05, 0.05, 10, "client")
    req = f.send(t + 0.05, CLIENT, 300)
    at = t + 0.05
    for backoff in (0.3, 0.6, 1.2):
        at += backoff
        f.send(at, CLIENT, 300, seq=req)
    return f, req, at


def p13_reset_after_retries():
    """Pattern 13b.  At the client: its request goes unanswered through three
    retries (0.3, 0.6, 1.2 s apart); it gives up with a reset.  The retries
    are the client's doubles; the reset ends no wait for data."""
    f, req, at = _unanswered_request()
    f.send(at + 2.4, CLIENT, 0, seq=req + 300, flags=RST | ACK)
    return f


def p14_bursty_uplink():
    """Pattern 14.  At the client, 40 ms from the server (TCP timestamps):
    the server sends a segment every 10 ms for 3 s, and a link on the way
    holds them and lets them through in bursts every 0.5 s.  The client
    sees 0.5 s gaps; the server's own clock shows it never stopped
    sending: no stall while it sends."""
    f = Flow(timestamps=True)
    t = f.handshake(0.0, 0.04, "client")
    t = exchange(f, t + 0.05, 0.04, 4, "client")
    f.request(t)
    start = t + 0.02
    for i in range(300):
        sent = start + i * 0.01
        burst_end = start + 0.5 * (int(i * 0.01 / 0.5) + 1)
        arrive = burst_end + 0.02 + (i % 50) * 0.00002
        f.send(arrive, SERVER, MSS, sent_at=sent, heard_by=sent - 0.02)
        if i % 2 == 1:
            f.deliver(CLIENT, f.next_seq[SERVER])
            f.send(arrive + 0.00001, CLIENT, 0)
    return f


# ---- issue 25: what the packets prove ---------------------------------------

def p15_spurious_tail():
    """At the server: the response's last segment arrives, the client's
    delayed ACK (300 ms) comes after the server's timer resent it (250 ms),
    and the client's ACK of the copy carries a D-SACK of it: nothing was
    lost.  Evidence order: ack-delay (rule 1.0); the paper's order: tail."""
    f = Flow()
    t = f.handshake(0.0, 0.05, "server")
    t = exchange(f, t + 0.05, 0.05, 4, "server")
    f.request(t + 0.05)
    last = f.send(t + 0.051, SERVER, MSS)
    f.send(t + 0.301, SERVER, MSS, seq=last)
    f.deliver(CLIENT, last + MSS)
    f.send(t + 0.351, CLIENT, 0)
    f.send(t + 0.352, CLIENT, 0, sack=[(last, last + MSS)])
    return f


def p16_arrived_at_receiver():
    """At the client: the response's last segment arrives, but the client
    (busy) answers nothing for a second; the server's timer resends it
    after 0.3 s and 0.9 s.  The capture at the receiver saw the original
    arrive before either copy was sent, and the client's TCP answers in
    the end: both copies were unnecessary (ack-delay, in hindsight; one
    pass knows it only once the client answers)."""
    f = Flow()
    t = f.handshake(0.0, 0.05, "client")
    t = exchange(f, t + 0.05, 0.05, 4, "client")
    f.request(t + 0.05)
    last = f.send(t + 0.1, SERVER, MSS)
    f.send(t + 0.4, SERVER, MSS, seq=last)
    f.send(t + 1.0, SERVER, MSS, seq=last)
    f.deliver(CLIENT, last + MSS)
    f.send(t + 1.1, CLIENT, 0)
    return f


def p16_arrived_unanswered():
    """As p16, but the client never answers again (it is gone): that the
    capture saw the original arrive proves nothing about its TCP, so the
    copies are losses (a tail, then a timeout double)."""
    f = Flow()
    t = f.handshake(0.0, 0.05, "client")
    t = exchange(f, t + 0.05, 0.05, 4, "client")
    f.request(t + 0.05)
    last = f.send(t + 0.1, SERVER, MSS)
    f.send(t + 0.4, SERVER, MSS, seq=last)
    f.send(t + 1.0, SERVER, MSS, seq=last)
    return f


def p17_timestamp_echo():
    """At the server, timestamps on, no SACK: the last segment arrives,
    the client's ACK of it is lost, the server's timer resends it, and the
    client's ACK of the copy echoes the original's TSval (RFC 7323: a
    duplicate does not update TS.Recent): the copy was unnecessary
    (Eifel, RFC 3522), ack-delay in hindsight."""
    f = Flow(timestamps=True)
    t = f.handshake(0.0, 0.05, "server", sack=False)
    t = exchange(f, t + 0.05, 0.05, 4, "server")
    f.request(t + 0.05)
    sent = t + 0.051
    last = f.send(sent, SERVER, MSS)
    f.send(t + 0.35, SERVER, MSS, seq=last)
    f.deliver(CLIENT, last + MSS)
    f.send(t + 0.4, CLIENT, 0, heard_by=sent)
    return f


def p18_vpn_shared_ids():
    """In the middle of the path, near a VPN endpoint that numbers the
    packets of two server addresses from one counter: 10.0.0.1 answers a
    request 0.8 s late, its ID three on from its previous packet, and the
    three IDs in between are 10.0.0.5's packets to the same client, in the
    capture.  Nothing proves an unseen transmission: the late answer is
    new data (the server's think time), not a retransmission."""
    f = Flow()
    other = Connection(client=("10.0.0.2", 40001), server=("10.0.0.5", 443))
    t = f.handshake(0.0, 0.1, "middle")
    t = exchange(f, t + 0.1, 0.1, 4, "middle")
    t = exchange(f, t + 0.2, 0.1, 4, "middle")
    req = f.request(t + 0.05)
    for k in range(3):   # the other address's packets take the counter's next IDs
        f.add(t + 0.3 + k * 0.1, other.packet(SERVER, 1 + k * 100, 1, ACK | PSH, payload=b"y" * 100,
                                              ip_id=f.id(SERVER)))
    f.send(t + 0.85, SERVER, 500)
    f.deliver(CLIENT, f.next_seq[SERVER])
    f.send(t + 0.9, CLIENT, 0)
    return f


def p19_first_timeouts():
    """At the server, a capture that starts mid-connection (no handshake,
    no RTT sample): its segment goes unanswered and its timer resends it
    0.3 s and 0.9 s later.  Each copy is its timer's (no loss signal, the
    minimum RTO after the previous transmission) and ends a stall, the 1 s
    initial RTO notwithstanding: a loss, then a timeout double."""
    f = Flow()
    f.next_seq = [1001, 50001]
    f.received = [50001, 1001]
    seg = f.send(100.0, SERVER, MSS)
    f.send(100.3, SERVER, MSS, seq=seg)
    f.send(100.9, SERVER, MSS, seq=seg)
    return f


def p20_fin_reaction():
    """At the server (a router's stack): a simultaneous close; the client's
    FIN arrives 1 ms after the server's, and the server sends its FIN again
    5.7 ms later to acknowledge it.  A reaction that fast is no timer, and
    below the minimum stall duration no gap is a stall."""
    f = Flow()
    t = f.handshake(0.0, 0.002, "server")
    t = exchange(f, t + 0.01, 0.002, 2, "server")
    fin = f.send(t + 1.0, SERVER, 0, flags=ACK | FIN)
    f.send(t + 1.001, CLIENT, 0, flags=ACK | FIN)
    f.deliver(SERVER, f.next_seq[CLIENT])
    f.send(t + 1.0067, SERVER, 0, seq=fin, flags=ACK | FIN)
    f.deliver(CLIENT, fin + 1)
    f.send(t + 1.0087, CLIENT, 0)
    return f


def p22_spurious_request_copy():
    """At the server: the client's request is answered at once, but its
    timer resends the request (the server's ACK was late); 5 s later the
    client closes.  The copy of an answered request asks nothing: the
    close is an idle connection's (client-idle), not a request given up."""
    f = Flow()
    t = f.handshake(0.0, 0.05, "server")
    t = exchange(f, t + 0.05, 0.05, 2, "server")
    req = f.request(t + 0.05, 200)
    f.send(t + 0.051, SERVER, MSS)
    f.send(t + 0.3, CLIENT, 200, seq=req)          # the client's timer: a copy
    f.deliver(CLIENT, f.next_seq[SERVER])
    f.send(t + 0.35, CLIENT, 0)
    f.send(t + 5.35, CLIENT, 0, flags=ACK | FIN)
    f.deliver(SERVER, f.next_seq[CLIENT])
    f.send(t + 5.4, SERVER, 0, flags=ACK | FIN)
    return f


def p23_fin_after_client_keep_alive():
    """At the server, mid-stream: the client's keep-alive (one old byte),
    the server's ACK, and 14 s later the server closes the idle
    connection.  A keep-alive asks nothing: client-idle, not the server
    slow to answer."""
    f = Flow()
    f.next_seq = [1001, 50001]
    f.received = [50001, 1001]
    f.send(100.0, CLIENT, 1, seq=1000)
    f.send(100.001, SERVER, 0)
    f.send(114.0, SERVER, 0, flags=ACK | FIN)
    return f


def p24_silence_proves_the_ack():
    """At the server: its last answer's ACK is missing from the capture
    (the capture lost it), and the server, with that segment outstanding,
    never resends it in 15 s: it had the ACK.  The client's next command
    15 s later ends an idle gap (client-idle), not late packets."""
    f = Flow()
    t = f.handshake(0.0, 0.05, "server")
    t = exchange(f, t + 0.05, 0.05, 2, "server")
    f.request(t + 0.05)
    f.send(t + 0.051, SERVER, 300)
    f.deliver(CLIENT, f.next_seq[SERVER])           # its ACK: not captured
    f.request(t + 15.0)
    f.send(t + 15.001, SERVER, 300)
    f.deliver(CLIENT, f.next_seq[SERVER])
    f.send(t + 15.05, CLIENT, 0)
    return f


def one_small_answer():
    """At the client, 30 ms from the server, after four exchanges: a
    request and the server's one small segment answering it; returns the
    flow and the time that segment arrived."""
    f = Flow()
    t = f.handshake(0.0, 0.03, "client")
    t = exchange(f, t + 0.05, 0.03, 4, "client")
    f.request(t + 0.05)
    f.send(t + 0.08, SERVER, 100)
    f.deliver(CLIENT, f.next_seq[SERVER])
    return f, t + 0.08


def p25_delayed_ack():
    """At the client, 30 ms from the server: one small segment of the
    server's arrives and the client's delayed-ACK timer holds its ACK
    200 ms: packet-delay (nothing lost), with the delayed-ACK hint."""
    f, t = one_small_answer()
    f.send(t + 0.2, CLIENT, 0)
    return f


def p25_ack_on_next_request():
    """At the client, 30 ms from the server: one small segment of the
    server's arrives and the client acknowledges it only with its next
    request, 150 ms later (its delayed-ACK timer, 200 ms, had not fired):
    packet-delay (nothing lost), the hint says the ACK waited for the next
    message, not that a timer held it."""
    f, t = one_small_answer()
    f.send(t + 0.15, CLIENT, 120)
    return f


def p25_late_segment_acked_at_once():
    """At the client, 30 ms from the server (TCP timestamps): the server
    answers a request at once with one small segment that a queue on the
    way holds 400 ms; the client acknowledges it 0.1 ms after it arrives.
    The server waited for that ACK (packet-delay), and the capture shows
    the client did not hold it: the hint names the path, not a delayed-ACK
    timer."""
    f = Flow(timestamps=True)
    t = f.handshake(0.0, 0.03, "client")
    t = exchange(f, t + 0.05, 0.03, 4, "client")
    t += 0.05
    f.request(t)
    f.send(t + 0.431, SERVER, 100, sent_at=t + 0.016, heard_by=t)
    f.deliver(CLIENT, f.next_seq[SERVER])
    f.send(t + 0.4311, CLIENT, 0)
    return f


def p26_one_direction():
    """Captured at the client, upstream only (the server's packets never
    reach the capture, as on a GRE tunnel): the SYN to its ACK gives the
    round trip (30 ms); the client's ACK of the unseen response 200 ms
    after its request shows the answer arrived then (data-unavailable,
    inferred), and its next request 2 s later is an idle client's."""
    f = Flow()
    f.add(0.0, f.conn.packet(CLIENT, 0, 0, SYN, options=tcp_options(mss=MSS, wscale=7, sack_perm=True),
                             ip_id=f.id(CLIENT)))
    f.next_seq[CLIENT] = 1
    f.deliver(CLIENT, 1)
    f.send(0.03, CLIENT, 0)
    seq = f.send(0.031, CLIENT, 300)
    f.next_seq[SERVER] += 2000                      # the response, unseen
    f.deliver(CLIENT, f.next_seq[SERVER])
    f.send(0.231, CLIENT, 0)
    f.send(2.231, CLIENT, 300)
    f.next_seq[SERVER] += 2000
    f.deliver(CLIENT, f.next_seq[SERVER])
    f.send(2.3, CLIENT, 0)
    return f


def p27_syn_after_reset():
    """At a router captured on both its interfaces (every packet twice,
    50 us apart; the server leaves IP IDs 0): the server's port refuses a
    first SYN with a reset; the client retries the same SYN 0.5 s later
    and the connection goes on, its round trip 1 ms, the server answering
    each request 20 ms late.  The copies are one packet each (an identical
    segment with nothing from the peer between comes no timer's way that
    soon), the reset ended nothing (the retried handshake starts again),
    and each answer is a stall of the server's (data-unavailable)."""
    f = Flow()
    f.conn.ip_id[SERVER] = 0
    f.id_steps[SERVER] = iter([0] * 64)
    f.send(0.0, CLIENT, 0, flags=SYN)
    f.add(0.0001, f.conn.packet(SERVER, 0, 1, RST | ACK, ip_id=f.id(SERVER)))
    t = f.handshake(0.5, 0.001, "server")
    for k in range(3):
        f.request(t + 0.01 + k * 0.1)
        f.send(t + 0.03 + k * 0.1, SERVER, 300)
        f.deliver(CLIENT, f.next_seq[SERVER])
        f.send(t + 0.031 + k * 0.1, CLIENT, 0)
    f.records += [(at + 0.00005, packet) for at, packet in f.records]
    return f


def p28_bare_ack_unanswered():
    """At the client, 30 ms from the server: the client sends a 40-byte
    notification; the server's delayed ACK comes 260 ms later and it never
    answers.  The ACK delayed only the client's data: the client's stall
    (packet-delay, the delayed-ACK hint), no server think time."""
    f = Flow()
    t = f.handshake(0.0, 0.03, "client")
    t = exchange(f, t + 0.05, 0.03, 4, "client")
    f.request(t + 0.05, 40)
    f.send(t + 0.31, SERVER, 0)
    f.send(t + 5.0, CLIENT, 0, flags=ACK | FIN)
    return f


def p28_bare_ack_answered():
    """As p28, but the server answers 100 ms after its delayed ACK: it was
    working on the request (data-unavailable at its ACK)."""
    f = Flow()
    t = f.handshake(0.0, 0.03, "client")
    t = exchange(f, t + 0.05, 0.03, 4, "client")
    f.request(t + 0.05, 40)
    f.send(t + 0.31, SERVER, 0)
    f.send(t + 0.41, SERVER, 300)
    f.deliver(CLIENT, f.next_seq[SERVER])
    f.send(t + 0.412, CLIENT, 0)
    return f


def p29_ack_proves_what_an_echo_does_not():
    """At the client, 40 ms from the server (TCP timestamps): the client
    sends a record, the server's next segment crosses it, and the client
    acknowledges that segment with a second record 1.5 ms after the first
    (a tick of its TSval clock later).
    The server acknowledges both records at once, but echoes the first
    one's TSval (RFC 7323 4.3: the segment at the left edge of what it had
    not yet acknowledged sets the echo), and answers 150 ms later with the
    same echo.  Its ACK proves it had the second record, and so the ACK of
    its segment: nothing was outstanding, its 150 ms are think time
    (data-unavailable), not a late ACK (packet-delay)."""
    f = Flow(timestamps=True)
    t = f.handshake(0.0, 0.04, "client")
    t = exchange(f, t + 0.05, 0.04, 4, "client")
    t += 0.05
    first = t
    f.request(first, 80)
    f.send(first + 0.0012, SERVER, 500, sent_at=first - 0.0188, heard_by=first - 0.05)
    f.deliver(CLIENT, f.next_seq[SERVER])
    f.request(first + 0.0015, 31)
    # Sent by the server as the second record reached it; both echo the first record's TSval.
    f.send(first + 0.0416, SERVER, 0, sent_at=first + 0.0216, heard_by=first)
    f.send(first + 0.1916, SERVER, 300, sent_at=first + 0.1716, heard_by=first)
    f.deliver(CLIENT, f.next_seq[SERVER])
    f.send(first + 0.1917, CLIENT, 0)
    return f


def p30_request_lost():
    """At the client, 40 ms from the server: after an answered exchange the
    client sends a 60-byte request that never arrives, and its timer
    resends it three times (0.3, 0.9 and 2.1 s later), lost too.  20 s
    after its last packet the server closes (an idle timeout); its FIN
    acknowledges none of the request.  The server answered nothing (no
    data-unavailable: no request had reached it) and the client was not
    idle (no client-idle): the request was lost on its way."""
    f = Flow()
    t = f.handshake(0.0, 0.04, "client")
    t = exchange(f, t + 0.05, 0.04, 4, "client")
    last_server = t - 0.0001
    start = t + 0.05
    seq = f.send(start, CLIENT, 60)
    for wait in (0.3, 0.9, 2.1):
        f.send(start + wait, CLIENT, 60, seq=seq)
    f.send(last_server + 20.0, SERVER, 0, flags=ACK | FIN)
    return f


def p30_request_crossed():
    """As p30, but the client's request leaves after 60 s of silence and
    the server's idle-timeout FIN arrives 10 ms later, sent before the
    request could reach it (a round trip is 40 ms): the two crossed, and
    the server closed an idle connection (client-idle)."""
    f = Flow()
    t = f.handshake(0.0, 0.04, "client")
    t = exchange(f, t + 0.05, 0.04, 4, "client")
    f.send(t + 60.0, CLIENT, 60)
    f.send(t + 60.01, SERVER, 0, flags=ACK | FIN)
    return f


def p31_ids_that_step_by_two():
    """At the client, 40 ms from the server, whose host numbers its packets
    two by two (another flow takes every other ID, never captured).  The
    server answers a request with two segments 5 ms apart, IDs two apart:
    nothing of this connection fits between them (no client packet to
    answer, too soon for any timer, a tail-loss probe's included), so the
    counter is not this connection's alone.  After 1.5 s it sends the
    rest of the response, its ID again two on: no copy of an original lost
    unseen is proven (it was tail, with a retransmission invented); after
    a full segment and a timer's silence, a pause and an unseen loss look
    alike (undetermined, rule 7)."""
    f = Flow()
    t = f.handshake(0.0, 0.04, "client")
    f.id_steps[SERVER] = iter([2] * 64)
    f.request(t + 0.05)
    t += 0.09
    f.send(t, SERVER, MSS)
    f.send(t + 0.005, SERVER, MSS)
    f.deliver(CLIENT, f.next_seq[SERVER])
    f.send(t + 0.0051, CLIENT, 0)
    f.send(t + 1.5, SERVER, 300)
    f.deliver(CLIENT, f.next_seq[SERVER])
    f.send(t + 1.5001, CLIENT, 0)
    return f


class CoarseServerClock(Flow):
    """A server whose TCP timestamp clock ticks ten times a second, and
    whose SYN-ACK carries TSval 0 (a reading of no clock)."""

    def tsval(self, side, sent_at):
        if side != SERVER:
            return super().tsval(side, sent_at)
        first = not self.tsvals[SERVER]
        self.last_tsval[SERVER] = 0 if first else int(sent_at * 10) + 218000
        self.tsvals[SERVER].append((sent_at, self.last_tsval[SERVER]))
        return self.last_tsval[SERVER]


def p32_coarse_timestamp_clock():
    """At the client, 96 ms from the server (TCP timestamps, the server's
    clock as CoarseServerClock).  Short messages each way for 1.3 s, then
    the server sends its next message 1.4 s after the client's last ACK,
    and 28 s later another: pauses of the server's application mid-stream
    (resource-constraint, at the server's own messages).  Taken as a 1 kHz
    clock from TSval 0, or placed by 100 ms ticks, the messages moved back
    to the client's ACK before them and the pauses became the ACKs' late
    arrival (packet-delay, at the client's ACKs)."""
    f = CoarseServerClock(timestamps=True)
    t = f.handshake(0.0, 0.096, "client")
    for _ in range(5):
        f.request(t + 0.0001, 40)
        t += 0.0961
        f.send(t, SERVER, 60, sent_at=t - 0.048)
        f.deliver(CLIENT, f.next_seq[SERVER])
        f.send(t + 0.0001, CLIENT, 0)
        t += 0.15
    for pause in (1.4, 28.6):
        t += pause
        f.send(t, SERVER, 39, sent_at=t - 0.048)
        f.deliver(CLIENT, f.next_seq[SERVER])
        f.send(t + 0.0001, CLIENT, 0)
    return f


def _close_after_retries(resent_after):
    """At the client: its request goes unanswered through three retries
    (0.3, 0.6, 1.2 s apart); 2 s after the last its application closes
    (a bare FIN).  resent_after: its timer resends the request, with the
    FIN, 2.8 s after the FIN."""
    f, req, at = _unanswered_request()
    f.send(at + 2.0, CLIENT, 0, seq=req + 300, flags=FIN | ACK)
    if resent_after:
        f.send(at + 4.8, CLIENT, 300, seq=req, flags=FIN | ACK)
    return f


def p33_close_ends_the_chain():
    """Nothing follows the FIN: the client gave up, and its FIN ends the
    chain of timer copies (their cause, t-double)."""
    return _close_after_retries(False)


def p33_close_inside_the_chain():
    """The timer resends the request after the FIN: the FIN was the
    application closing while the timer still waited, no end of the chain
    and no copy (undetermined), and the hint says the client went on
    resending."""
    return _close_after_retries(True)


def _answer_after(skipped_ids):
    f = Flow()
    t = f.handshake(0.0, 0.04, "client")
    f.request(t + 0.05, length=72)
    f.send(t + 0.09, SERVER, 0)                  # the server's ACK of the request
    f.conn.ip_id[SERVER] += skipped_ids          # what the server sent that the capture never saw
    f.send(t + 5.09, SERVER, 79)
    f.deliver(CLIENT, f.next_seq[SERVER])
    f.send(t + 5.0901, CLIENT, 0)
    return f


def p34_answer_after_unseen_ids():
    """At the client, 40 ms from the server: the server acknowledges a
    72-byte request at once, and its first answer (79 bytes) arrives 5 s
    later with its IP ID 6 on, where no packet of the capture carries the
    5 IDs between (made so: the server's 5 earlier sends of the answer
    were lost before the capture point).  The counter is not yet shown to
    be this connection's (one step), so the IDs prove neither the copies
    nor the server's wait: not data-unavailable, undetermined."""
    return _answer_after(5)


def p34_answer_after_consecutive_ids():
    """As p34, but the answer's IP ID follows the ACK's: the server sent
    nothing in between, and its 5 s were its application's
    (data-unavailable)."""
    return _answer_after(0)


def _pause_after_ids(host_elsewhere, pause=5.0):
    """At the client, 40 ms from the server: two requests answered by four
    segments each, the server's IDs one by one; between the second request
    and its answer (three full segments and a short one), host_elsewhere:
    the server's host sends a packet to another connection (10.0.0.1:443
    to 10.0.0.2:40001, in the capture) with its counter's next ID.
    Everything acknowledged, the server sends 300 bytes of new data pause
    seconds later, its ID 3 on: the 2 IDs between are in no packet of the
    capture."""
    f = Flow()
    t = f.handshake(0.0, 0.04, "client")
    t = exchange(f, t + 0.1, 0.04, 4, "client")
    f.request(t + 0.1)
    if host_elsewhere:
        other = Connection(client=("10.0.0.2", 40001), server=("10.0.0.1", 443))
        f.add(t + 0.12, other.packet(SERVER, 1, 1, ACK | PSH, payload=b"y" * 100, ip_id=f.id(SERVER)))
    t += 0.14
    for length in (MSS, MSS, MSS, 500):     # a short last segment: the response's end
        f.send(t, SERVER, length)
        t += 0.0001
    f.deliver(CLIENT, f.next_seq[SERVER])
    f.send(t + 0.0001, CLIENT, 0)
    f.conn.ip_id[SERVER] += 2
    f.send(t + pause, SERVER, 300)
    f.deliver(CLIENT, f.next_seq[SERVER])
    f.send(t + pause + 0.0001, CLIENT, 0)
    return f


def p35_pause_after_host_ids():
    """The server's host numbers all its packets from one counter: the ID
    missing in this connection is on its packet to the other (made so).  The
    2 IDs missing before the late data may be packets it sent elsewhere,
    outside the capture, as much as copies of the data lost before it: no
    copy is proven, and the late data is the application's pause
    (resource-constraint), not a timer's copy."""
    return _pause_after_ids(True)


def p35_pause_after_connection_ids():
    """Control: no packet of the host outside this connection, its IDs one
    by one for 12 steps, so the 2 missing IDs are this connection's own
    packets, lost before the capture point (made so: the server's timer
    sent the data twice before, 2.5 s after the last ACK: an original and
    a copy fit in that silence, up to three timeouts of RFC 6298's 1 s
    floor): the late data is a retransmission.  (5 s after it, as in
    p35_pause_after_host_ids, no chain of two fits: the server was idle
    first, and the IDs prove no copy, /trust/an-idle-sender-claims-no-chain.)"""
    return _pause_after_ids(False, pause=2.5)


def _heartbeats(answered):
    """At the client (the initiator), 40 ms from the server: the client
    reports 100 bytes, then sends a 9-byte message every 10 s (5 of them);
    3 s after the fifth the server sends a 13-byte command.  answered: the
    server answers every client message at once with 20 bytes; otherwise it
    only acknowledges them, 200 ms later (a delayed ACK)."""
    f = Flow()
    t = f.handshake(0.0, 0.04, "client")
    for k, length in enumerate([100] + [9] * 5):
        at = t + 0.05 + 10.0 * k
        f.request(at, length=length)
        if answered:
            f.send(at + 0.041, SERVER, 20)
            f.deliver(CLIENT, f.next_seq[SERVER])
            f.send(at + 0.0411, CLIENT, 0)
        else:
            f.send(at + 0.24, SERVER, 0)
    at = t + 53.05
    f.send(at, SERVER, 13)
    f.deliver(CLIENT, f.next_seq[SERVER])
    f.send(at + 0.0001, CLIENT, 0)
    return f


def p36_heartbeats():
    """The server only acknowledges the client's messages (made so): the
    client pushes its data, 145 bytes against 13, so it is the sender
    although under the upload floor.  Each message 10 s after the last is
    its application's pause (resource-constraint), and the server's
    command its peer's new request (client-idle)."""
    return _heartbeats(False)


def p36_requests_answered():
    """Control: the server answers each message (made so): requests, the
    server is the sender, and each new message 10 s later is its client's
    (client-idle)."""
    return _heartbeats(True)


def p37_keep_alive_echo():
    """At the client, 0.5 ms from the server (TCP timestamps): a response,
    then 10 s of idle, the client's keep-alive (no byte, one below its
    next sequence number) and the server's ACK of it 1.7 ms later, which
    echoes the client's TSval from before the keep-alive (a segment below
    the window does not update TS.Recent, RFC 7323 4.3).  One idle gap, one
    stall: at the keep-alive (client-idle), none at the server's ACK."""
    f = Flow(timestamps=True)
    t = f.handshake(0.0, 0.0005, "client")
    t = exchange(f, t + 0.01, 0.0005, 2, "client")
    heard = t
    f.send(t + 10.15, CLIENT, 0, seq=f.next_seq[CLIENT] - 1)
    f.send(t + 10.1517, SERVER, 0, heard_by=heard)
    f.send(t + 15.0, SERVER, 0, flags=ACK | FIN, heard_by=heard)
    f.deliver(CLIENT, f.next_seq[SERVER])
    f.send(t + 15.0005, CLIENT, 0, flags=ACK | FIN)
    return f


def p38_keystroke_resent():
    """At the client, 3 ms from the server: a remote-login session; the
    client's keystroke (one byte) goes unanswered and its timer sends it
    again 0.2 s and 0.6 s later, at its next sequence number less one,
    which Wireshark's rule flags as a keep-alive.  The byte was never
    acknowledged, so these are copies of it (RFC 1122 4.2.3.6: a
    keep-alive repeats an acknowledged byte): two retransmission stalls
    of the client, the second a double; then the server's echo."""
    f = Flow()
    t = f.handshake(0.0, 0.003, "client")
    t = exchange(f, t + 0.01, 0.003, 2, "client")
    seq = f.send(t + 1.0, CLIENT, 1)
    f.send(t + 1.2, CLIENT, 1, seq=seq)
    f.send(t + 1.6, CLIENT, 1, seq=seq)
    f.deliver(SERVER, seq + 1)
    f.send(t + 1.603, SERVER, 1)
    f.deliver(CLIENT, f.next_seq[SERVER])
    f.send(t + 1.643, CLIENT, 0)
    return f


def p39_upload_in_chunks():
    """At the client, 10 ms from the server: an upload in chunks of 20
    segments, each answered by the server with 187 bytes.  The first
    answer comes 0.3 s after the server's ACK of the chunk, and the next
    chunk at once after it: the server's wait to answer
    (data-unavailable, the server's stall).  The second answer comes at
    once, the client's delayed ACK of it 40 ms later, and its next chunk
    only 10 s after that: the late ACK held the server's answer
    (packet-delay, the server's stall), and the chunk, the client's own
    pace, answers nothing."""
    f = Flow()
    t = f.handshake(0.0, 0.01, "client")

    def chunk(t):
        for i in range(20):
            f.send(t + i * 0.0001, CLIENT, MSS)
        f.deliver(SERVER, f.next_seq[CLIENT])
        return t + 0.0119                          # the server's ACK of it, seen here

    f.send(chunk(t + 0.01), SERVER, 0)
    t += 0.3219
    f.send(t, SERVER, 187)                         # the late answer
    f.deliver(CLIENT, f.next_seq[SERVER])
    answered = chunk(t + 0.001)
    f.send(answered, SERVER, 187)                  # the second answer, at once
    f.deliver(CLIENT, f.next_seq[SERVER])
    f.send(answered + 0.04, CLIENT, 0)             # the client's delayed ACK
    f.send(chunk(answered + 10.0), SERVER, 0)
    return f


def p40_answers_carry_their_acks():
    """At the client, 2 ms from the server: the client polls, the server
    answers each 200-byte request 60 ms later with 250 bytes that carry
    its ACK of the request (no bare ACK), and the client's next request
    follows each answer 0.1 ms later.  The 60 ms are the server's think
    time (data-unavailable on each answer), not its distance: the requests
    sent at once after the answers end no stall."""
    f = Flow()
    t = f.handshake(0.0, 0.002, "client") + 0.0001
    for _ in range(6):
        f.request(t, 200)
        f.send(t + 0.06, SERVER, 250)
        f.deliver(CLIENT, f.next_seq[SERVER])
        t += 0.0601
    f.request(t, 200)
    return f


def p41_keystrokes_acked_late():
    """At the client (its packets at TTL 64; the server's at 61, three
    routers away), from the middle of a remote login: each keystroke is
    echoed 3 ms later and the client acknowledges each 1-byte echo with its
    delayed-ACK timer 47 ms later.  Then a keystroke's echo does not come:
    the client's timer re-sends the byte 0.21 s later and again 0.42 s
    after that, and the echo follows the second copy.  Captured at the
    client, the copies are the last byte re-sent (tail), then re-sent again
    (t-double); nothing shows that the byte had arrived."""
    f = Flow()
    f.conn.ttl = [64, 61]
    t = 0.0
    for _ in range(6):
        f.request(t, 1)
        f.send(t + 0.003, SERVER, 1)
        f.deliver(CLIENT, f.next_seq[SERVER])
        f.send(t + 0.05, CLIENT, 0)
        t += 0.15
    seq = f.send(t, CLIENT, 1)
    f.send(t + 0.21, CLIENT, 1, seq=seq)
    f.send(t + 0.63, CLIENT, 1, seq=seq)
    f.deliver(SERVER, seq + 1)
    f.send(t + 0.635, SERVER, 1)
    return f


PATTERNS = {name: fn for name, fn in sorted(globals().items()) if name[0] == "p" and name[1:3].isdigit()}


def write(out_dir, name):
    path = os.path.join(out_dir, name + ".pcap")
    PATTERNS[name]().write(path)
    return path


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for n in sys.argv[2:] or PATTERNS:
        print(write(out, n))
