"""The lab's scenarios: how each capture is made and which stalls it must show.

A scenario gives the sender variant (netlab.VARIANTS), the link (relay.py),
the client's script (endpoints.py) and its expectations.  An expectation
names a cause, the one-pass cause when that differs (spec section 6), a
locator that finds the frame from plain TCP fields (label.py), and the
reason the label follows from how the capture was made.

The default link: 25 ms each way (RTT 50 ms), no loss.  Then SRTT is about
50 ms, the RTO about 250 ms and the stall threshold min(2 SRTT, RTO) about
100 ms; the scenarios keep every pause they create well above that and
every other gap well below it.  Linux sends 1448 bytes per segment with
timestamps over IPv4 (MSS 1460), 1428 over IPv6.
"""

MSS4 = 1448
MSS6 = 1428


def seq(i, mss=MSS4):
    """Relative sequence number of the i-th full segment of a response."""
    return 1 + i * mss


class Expect:
    def __init__(self, cause, locator, reason, one_pass=None):
        self.cause = cause
        self.one_pass = one_pass or cause
        self.locator = locator
        self.reason = reason


class Scenario:
    def __init__(self, name, description, variant, client, expect, link=None,
                 server_sysctls=None, client_sysctls=None, initcwnd=None, ipv6=False,
                 snaplen=0, derive=None, kernel_notes=None, mixed=False, settle_s=0.6,
                 sender="server", rto_min_ms=None):
        self.name = name
        self.description = description
        self.variant = variant
        self.client = client
        self.expect = expect
        self.link = link or {}
        self.server_sysctls = server_sysctls or {}
        self.client_sysctls = client_sysctls or {}
        self.initcwnd = initcwnd
        self.ipv6 = ipv6
        self.snaplen = snaplen
        self.derive = derive          # (base scenario, operation, argument) for derived captures
        self.kernel_notes = kernel_notes or ""
        self.mixed = mixed
        self.settle_s = settle_s      # how long to keep capturing after the client is done, seconds
        self.sender = sender          # the data sender: "server", or "client" for an upload
        self.rto_min_ms = rto_min_ms  # the data sender's route rto_min, ms (None: Linux's 200)


def one_request(size, linger_ms=50, **req):
    return {"connections": [{"requests": [dict(size=size, **req)], "linger_ms": linger_ms}]}


def last_seq(size, mss=MSS4):
    return 1 + (size - 1) // mss * mss


SCENARIOS = [
    Scenario(
        "data-unavailable",
        "The server thinks 500 ms before answering a 30 KB request.",
        "modern", one_request(30000, think_ms=500),
        [Expect("data-unavailable", ("response", 1),
                "the server slept 500 ms (think time) before the first byte of its response")]),
    Scenario(
        "client-idle",
        "The client pauses 800 ms between two requests and 600 ms before closing.",
        "modern",
        {"connections": [{"requests": [{"size": 20000}, {"size": 20000, "wait_ms": 800}],
                          "linger_ms": 600}]},
        [Expect("client-idle", ("request", 2),
                "the client waited 800 ms after the first response before its second request"),
         Expect("client-idle", ("client_fin",),
                "the client waited 600 ms after the second response before closing")]),
    Scenario(
        "resource-constraint",
        "The server writes 20 KB of a 60 KB response, pauses 600 ms, then writes the rest.",
        "modern", one_request(60000, pause_at=20000, pause_ms=600),
        [Expect("resource-constraint", ("server_seq", 20001),
                "the server application paused 600 ms mid-response after 20000 bytes, "
                "which were all ACKed within about 150 ms")]),
    Scenario(
        "zero-window",
        "A slow reader: 8 KB receive buffer, reading 1000 bytes every 250 ms of a 30 KB response.",
        "modern",
        {"connections": [{"rcvbuf": 8192, "linger_ms": 50,
                          "requests": [{"size": 30000, "read_chunk": 1000, "read_delay_ms": 250}]}]},
        [Expect("zero-window", ("closed_window_span",),
                "the client's window was closed (below one MSS) while the server had the rest of "
                "the response to send: every stall in this span waits for the reader"),
         Expect("packet-delay", ("acks_ending_open_window_gaps",),
                "the reader's ACK ended a gap begun with its window open (one MSS or more), which the "
                "server's segment used up: the window at the stall's start was open, so the ACK's "
                "delay (the reader's delayed-ACK timer) is the cause, if this gap is a stall"),
         Expect("client-idle", ("drain_span",),
                "the server had sent everything; the reader drains its 8 KB buffer for about "
                "2 s and its window updates end these gaps: nothing outstanding, no request")]),
    Scenario(
        "tail-paper",
        "Paper-era sender (no TLP): the last segment of an 8000-byte response is lost once.",
        "paper",
        dict(one_request(8000)),
        [Expect("tail", ("retx", last_seq(8000), 1),
                "the relay dropped the 1st transmission of the response's last segment; with "
                "nothing sent after it and TLP off, only the RTO could resend it (Open state)")],
        link={"drops": [{"dir": "s2c", "seq": last_seq(8000), "tx": [1]}]}),
    Scenario(
        "tail-tlp",
        "Today's Linux: the last segment of an 8000-byte response is lost once; a tail-loss "
        "probe resends it.",
        "modern", one_request(8000),
        [Expect("tail", ("retx", last_seq(8000), 1),
                "the relay dropped the 1st transmission of the last segment; no dupacks can "
                "follow it, so the sender waited for its tail-loss probe timer")],
        link={"drops": [{"dir": "s2c", "seq": last_seq(8000), "tx": [1], "at": "server"}]}),
    Scenario(
        "t-double-paper",
        "Paper-era sender: the last segment of an 8000-byte response is lost twice.",
        "paper", one_request(8000),
        [Expect("tail", ("retx", last_seq(8000), 1),
                "1st transmission of the last segment dropped: the RTO resends it"),
         Expect("t-double", ("retx", last_seq(8000), 2),
                "the RTO retransmission was dropped too: the backed-off RTO resends it again")],
        link={"drops": [{"dir": "s2c", "seq": last_seq(8000), "tx": [1, 2], "at": "server"}]}),
    Scenario(
        "t-double-tlp",
        "Today's Linux: the last segment and its tail-loss probe are both lost.",
        "modern", one_request(8000),
        [Expect("tail", ("retx", last_seq(8000), 1),
                "1st transmission of the last segment dropped: the tail-loss probe resends it"),
         Expect("t-double", ("retx", last_seq(8000), 2),
                "the probe was dropped too: the RTO resends the segment a second time, after "
                "a timer-driven first retransmission")],
        link={"drops": [{"dir": "s2c", "seq": last_seq(8000), "tx": [1, 2]}]}),
    Scenario(
        "f-double",
        "A 40-segment response; segment 35 and its fast retransmission are both lost.",
        "modern", one_request(40 * MSS4),
        [Expect("f-double", ("retx", seq(35), 2),
                "segments 36-39 were SACKed, so segment 35 was fast-retransmitted; the relay "
                "dropped that retransmission too and, with no data left to send after it, only "
                "the RTO could resend it (paper Figure 9)")],
        link={"drops": [{"dir": "s2c", "seq": seq(35), "tx": [1, 2], "at": "server"}]}),
    Scenario(
        "small-cwnd",
        "Initial congestion window of 2: both segments of the first flight of a 30 KB "
        "response are lost.",
        "paper", one_request(30000),
        [Expect("small-cwnd", ("dropped_retx", 0, 1),
                "the route's initcwnd 2 allowed 2 segments in flight; both were dropped, so no "
                "dupack could come and the RTO resent the first while more data waited")],
        link={"drops": [{"dir": "s2c", "seq_range": [seq(0), seq(2)], "tx": [1]}]},
        initcwnd=2),
    Scenario(
        "small-rwnd",
        "The client's 4 KB receive buffer allows 2 segments in flight; a 130 ms blackout "
        "in the middle of a 40 KB response loses both.",
        "paper",
        {"connections": [{"rcvbuf": 4096, "linger_ms": 50, "requests": [{"size": 40000}]}]},
        [Expect("small-rwnd", ("dropped_retx", 0, 1),
                "SO_RCVBUF 4096 made the client advertise 2920 bytes (2 MSS); a 130 ms blackout "
                "from sequence 14481 on dropped every segment in flight, so no dupack could "
                "come and the RTO resent the first of them")],
        link={"drops": [{"dir": "s2c", "blackout_after_seq": seq(10), "duration_ms": 130, "at": "server"}]}),
    Scenario(
        "continuous-loss",
        "A 20-segment response whose whole second flight (segments 10-19) is lost.",
        "paper", one_request(20 * MSS4),
        [Expect("continuous-loss", ("dropped_retx", 0, 1),
                "the relay dropped every segment of the second flight (10 outstanding), so no "
                "ACK or SACK could come back before the RTO")],
        link={"drops": [{"dir": "s2c", "seq_range": [seq(10), seq(20)], "tx": [1], "at": "server"}]}),
    Scenario(
        "ack-delay",
        "The client's ACKs are held for 450 ms in the middle of a 100 KB response.",
        "paper", one_request(100000),
        [Expect("ack-delay", ("nth_retx_frame", 1),
                "no segment was lost: the relay held the client's ACKs for 450 ms, longer than "
                "the RTO, so the RTO resent data the client already had; the client's DSACK "
                "shows it.  One pass cannot see the DSACK yet and, with nothing known to have "
                "arrived, calls it continuous loss", one_pass="continuous-loss"),
         Expect("packet-delay", ("hold_release", 0),
                "the held ACKs arrive about 170 ms after the retransmission: outstanding data, "
                "no retransmission")],
        link={"holds": [{"dir": "c2s", "after_ack": seq(20), "hold_ms": 450}]}),
    Scenario(
        "packet-delay",
        "The client's ACKs are held for 160 ms (above 2 SRTT, below the RTO) mid-response.",
        "paper", one_request(100000),
        [Expect("packet-delay", ("hold_release", 0),
                "the relay held the client's ACKs for 160 ms: data was outstanding, nothing "
                "was lost and the RTO did not fire")],
        link={"holds": [{"dir": "c2s", "after_ack": seq(20), "hold_ms": 160, "at": "server"}]}),
    Scenario(
        "large-dupthres",
        "No SACK, and the sender's duplicate-ACK threshold raised to 30: one segment of a "
        "60 KB response is lost.",
        "newreno", one_request(60000),
        [Expect("large-dupthres", ("retx", seq(25), 1),
                "about 15 duplicate ACKs came back for segment 25, but net.ipv4.tcp_reordering=30 "
                "(as if reordering had been measured) kept the sender from fast retransmit "
                "until the RTO")],
        link={"drops": [{"dir": "s2c", "seq": seq(25), "tx": [1], "at": "server"}]},
        server_sysctls={"net.ipv4.tcp_reordering": "30"}),
    Scenario(
        "undetermined-retransmission",
        "No SACK: segment 25 is lost, only segments 26-27 arrive after it, the rest of the "
        "window is lost too.",
        "newreno", one_request(60000),
        [Expect("undetermined", ("retx", seq(25), 1),
                "segments 26-27 arrived (the cumulative ACK after the retransmission jumps past "
                "them), so not every outstanding segment was lost; at most two duplicate ACKs "
                "came back (below 3), more than 4 segments were in flight, none was spurious: no "
                "rule fits.  In one pass only those duplicate ACKs can show that 26-27 arrived, "
                "and Linux does not always send one for two back-to-back out-of-order segments: "
                "without them nothing is known to have arrived (continuous loss)",
                one_pass="undetermined|continuous-loss")],
        link={"drops": [{"dir": "s2c", "seq": seq(25), "tx": [1]},
                        {"dir": "s2c", "seq_range": [seq(28), seq(42)], "tx": [1]}]}),
    Scenario(
        "undetermined",
        "The client gives up after 1.5 s on a request the server answers after 2.5 s.",
        "modern",
        {"connections": [{"give_up_ms": 1500, "linger_ms": 0,
                          "requests": [{"size": 1000, "think_ms": 2500}]}]},
        [Expect("undetermined", ("client_fin",),
                "the client closed with its request pending and nothing outstanding: the "
                "stall ends with neither a response nor a new request, which no rule covers"),
         Expect("data-unavailable", ("response", 1),
                "the server's late response, 1 s after the client left (think time 2.5 s)")],
        settle_s=1.8),
    Scenario(
        "four-segment-response",
        "No SACK, no TCP timestamps: the 2nd segment of a 4-segment (5000-byte) response is lost.",
        "newreno", one_request(5000),
        [Expect("tail", ("retx", 1 + 1460, 1),
                "only segments 3 and 4 arrived after the lost one: two duplicate ACKs, below the "
                "threshold of 3, and the response had nothing more, so the RTO resent it (the "
                "paper's short-flow tail case)")],
        link={"drops": [{"dir": "s2c", "seq": 1 + 1460, "tx": [1], "at": "server"}]},
        server_sysctls={"net.ipv4.tcp_timestamps": "0"}),
    Scenario(
        "four-segment-response-rack",
        "Today's Linux: the same loss in a 4-segment response, recovered by RACK without a stall.",
        "modern", one_request(5000),
        [],
        link={"drops": [{"dir": "s2c", "seq": 1 + 1448, "tx": [1]}]}),
    Scenario(
        "ipv6-tail",
        "IPv6, paper-era sender: the last segment of an 8000-byte response is lost once.",
        "paper", one_request(8000),
        [Expect("tail", ("retx", last_seq(8000, MSS6), 1),
                "as tail-paper, over IPv6 (1428-byte segments)")],
        link={"drops": [{"dir": "s2c", "seq": last_seq(8000, MSS6), "tx": [1], "at": "server"}]},
        ipv6=True),
    Scenario(
        "mid-connection",
        "The f-double capture without its first 12 frames (no handshake, no request).",
        None, None,
        [Expect("f-double", ("retx", seq(35), 2),
                "the same lost fast retransmission as in f-double; TAPO must find it without "
                "the handshake (no MSS or window scale, sender chosen by bytes sent)")],
        derive=("f-double", "cut", 12)),
    Scenario(
        "snaplen-truncated",
        "The t-double-paper capture cut to 54 bytes per frame (IP and TCP headers only).",
        None, None,
        [Expect("tail", ("retx", last_seq(8000), 1), "as in t-double-paper"),
         Expect("t-double", ("retx", last_seq(8000), 2), "as in t-double-paper")],
        derive=("t-double-paper", "snaplen", 54)),
    Scenario(
        "seq-wrap",
        "Crafted from the f-double capture: the server's sequence numbers shifted so that "
        "they wrap past 2^32 between segments 27 and 28.",
        None, None,
        [Expect("f-double", ("retx", seq(35), 2),
                "as in f-double; the raw numbers wrap in the middle of the loss recovery")],
        derive=("f-double", "wrap", seq(28) - 100)),
]


def upload_request(upload, size=100):
    """A request carrying an upload body, and the relative sequence number of
    the upload's last full-sized or short segment (the JSON line is sent in
    the same write as the body)."""
    import json
    line = len(json.dumps({"size": size, "upload": upload})) + 1
    return {"size": size, "upload": upload}, last_seq(line + upload)


UPLOAD_TAIL, UPLOAD_TAIL_SEQ = upload_request(30000)
UPLOAD_BULK, _ = upload_request(40 * MSS4)

SCENARIOS += [
    Scenario(
        "upload-tail",
        "An upload: the client sends a 30 KB body; the last segment of the body is lost once "
        "(paper-era client, no TLP).",
        "paper", {"connections": [{"requests": [UPLOAD_TAIL], "linger_ms": 50}]},
        [Expect("tail", ("retx", UPLOAD_TAIL_SEQ, 1),
                "the client is the data sender; the relay dropped the 1st transmission of the "
                "body's last segment, nothing followed it and TLP was off, so only the client's "
                "RTO could resend it")],
        link={"drops": [{"dir": "c2s", "seq": UPLOAD_TAIL_SEQ, "tx": [1], "at": "server"}]},
        sender="client"),
    Scenario(
        "upload-f-double",
        "An upload of 40 segments; segment 35 of the body and its fast retransmission are both "
        "lost.",
        "modern", {"connections": [{"requests": [UPLOAD_BULK], "linger_ms": 50}]},
        [Expect("f-double", ("retx", seq(35), 2),
                "the client is the data sender: its segments 36-39 were SACKed, so segment 35 was "
                "fast-retransmitted; the relay dropped that retransmission too and, with no data "
                "left to send after it, only the client's RTO could resend it")],
        link={"drops": [{"dir": "c2s", "seq": seq(35), "tx": [1, 2]}]},
        sender="client"),
    Scenario(
        "sack-released-f-double",
        "Segment 35 of a 40-segment response is lost and the client's ACKs are held 300 ms, so "
        "the SACKs reach the server about 325 ms after the segment left (more than an RTO of "
        "this path) and release its fast retransmission then; that retransmission is lost too.  "
        "The server's route rto_min is 1 s, so its RTO does not fire first.",
        "paper", one_request(40 * MSS4),
        [Expect("packet-delay", ("hold_release", 0),
                "the relay held the client's ACKs and SACKs for 300 ms: data was outstanding, no "
                "timer fired"),
         Expect("f-double", ("sack_released_retx", seq(35), 2),
                "the first retransmission of segment 35 left within 5 ms of the held SACKs, about "
                "325 ms after the original (a fast retransmission, however long after the "
                "original); the relay dropped it, and only the RTO resent the segment again")],
        link={"drops": [{"dir": "s2c", "seq": seq(35), "tx": [1, 2]}],
              "holds": [{"dir": "c2s", "after_ack": seq(35), "hold_ms": 300}]},
        rto_min_ms=1000, settle_s=1.5),
    Scenario(
        "syn-retry",
        "An upload whose SYN is lost once: the client resends it after its 1 s initial RTO.",
        "modern", {"connections": [{"requests": [UPLOAD_TAIL], "linger_ms": 50}]},
        [Expect("undetermined", ("syn", 1),
                "the resent SYN ends a silence of the 1 s initial RTO, a timer's retransmission "
                "whatever the rounding of the gap; the decision tree cannot refine it for a SYN")],
        link={"drops": [{"dir": "c2s", "syn": True, "tx": [1], "at": "server"}]},
        sender="client", settle_s=0.3),
    Scenario(
        "lan-think",
        "A LAN: 0.1 ms round trip; six 20 KB requests back to back, the server thinks 38 ms "
        "before the fourth answer (an NFS server's pause).",
        "modern",
        {"connections": [{"linger_ms": 0, "requests": [{"size": 20000, "think_ms": 38 if i == 3 else 0}
                                                        for i in range(6)]}]},
        [Expect("data-unavailable", ("think_end", 4),
                "the server slept 38 ms before its fourth response; every other gap of this LAN "
                "path is a fraction of a millisecond, below the minimum stall duration")],
        link={"delay_ms": {"s2c": 0.05, "c2s": 0.05}}),
]


def web_browsing_script(seed, connections=10):
    """Short web-like exchanges: a few requests per connection, server think
    times and client pauses drawn from a seeded generator."""
    import random
    rng = random.Random(seed)
    conns = []
    for c in range(connections):
        reqs = []
        for r in range(rng.randint(2, 4)):
            reqs.append({"size": rng.choice([3000, 8000, 15000, 30000, 60000]),
                         "think_ms": rng.choice([0, 20, 50, 300, 500]),
                         "wait_ms": 0 if r == 0 else rng.choice([30, 60, 400, 800])})
        conns.append({"start_ms": 150 * c, "requests": reqs, "linger_ms": rng.choice([20, 500])})
    return {"connections": conns, "parallel": True}


# Causes a mixed scenario can produce at all, from how it is made: a loss
# or delay in the network; server think time and client pauses where the
# script has them.  Anything else is a bug.
NETWORK_CAUSES = ["f-double", "t-double", "tail", "small-cwnd", "small-rwnd", "continuous-loss",
                  "ack-delay", "large-dupthres", "undetermined", "packet-delay"]

SCENARIOS += [
    Scenario(
        "mixed-lossy-bulk",
        "A 1.5 MB download over a 20 Mbit/s path with 5 % loss towards the client, 3 % towards "
        "the server, up to 15 ms of jitter each way and a 60-packet queue.",
        "modern", one_request(1500000, linger_ms=20),
        [Expect("|".join(NETWORK_CAUSES + ["data-unavailable", "client-idle"]), ("any_stall",),
                "one request, no think time, no client pause: the server can stall only at the "
                "head of the response (its first byte after the request) and the client only "
                "before its FIN; every other stall comes from the network")],
        link={"rate_mbit": {"s2c": 20}, "queue_pkts": {"s2c": 60},
              "loss": {"s2c": 0.05, "c2s": 0.03}, "jitter_ms": {"s2c": 15, "c2s": 15}},
        snaplen=128, mixed=True),
    Scenario(
        "mixed-web",
        "Ten web-like connections in parallel, 2-4 requests each of 3-60 KB, server think times "
        "up to 500 ms and client pauses up to 800 ms, 1 % loss each way on a 10 Mbit/s path.",
        "modern", web_browsing_script(2015),
        [Expect("|".join(NETWORK_CAUSES + ["data-unavailable", "client-idle"]), ("any_stall",),
                "the server thinks before responses and the clients pause between requests; "
                "nothing else stops the applications, the windows are large: no zero-window or "
                "resource-constraint stall can occur")],
        link={"rate_mbit": {"s2c": 10}, "queue_pkts": {"s2c": 100},
              "loss": {"s2c": 0.01, "c2s": 0.01}, "jitter_ms": {"s2c": 3, "c2s": 3}},
        snaplen=128, mixed=True, settle_s=1.0),
    Scenario(
        "mixed-lossy-short",
        "Twelve connections in parallel, three requests of 8-60 KB each, 4 % loss each way on both "
        "halves of the path, 2 ms of jitter; a paper-era server (no TLP).",
        "paper", web_browsing_script(2016, connections=12),
        [Expect("|".join(NETWORK_CAUSES + ["data-unavailable", "client-idle"]), ("any_stall",),
                "the server thinks before responses and the clients pause between requests; "
                "every other stall comes from the network")],
        link={"rate_mbit": {"s2c": 20}, "queue_pkts": {"s2c": 100},
              "loss": {"s2c": 0.04, "c2s": 0.04}, "jitter_ms": {"s2c": 2, "c2s": 2}},
        snaplen=128, mixed=True, settle_s=1.5),
    Scenario(
        "mixed-lossy-modern",
        "The same twelve connections with today's Linux (TLP, RACK), 4 % loss each way.",
        "modern", web_browsing_script(2016, connections=12),
        [Expect("|".join(NETWORK_CAUSES + ["data-unavailable", "client-idle"]), ("any_stall",),
                "as mixed-lossy-short, with a modern sender")],
        link={"rate_mbit": {"s2c": 20}, "queue_pkts": {"s2c": 100},
              "loss": {"s2c": 0.04, "c2s": 0.04}, "jitter_ms": {"s2c": 2, "c2s": 2}},
        snaplen=128, mixed=True, settle_s=1.5),
    Scenario(
        "mixed-bufferbloat",
        "An interactive connection (a 2 KB request every 500 ms) learns a 20 ms RTT; then a "
        "600 KB download fills the 300-packet queue of a 2 Mbit/s bottleneck in front of it "
        "(up to 1.7 s of queueing).",
        "modern",
        {"parallel": True, "connections": [
            {"linger_ms": 20,
             "requests": [{"size": 2000, "wait_ms": 0 if i == 0 else 500} for i in range(8)]},
            {"start_ms": 1200, "requests": [{"size": 600000}], "linger_ms": 20}]},
        [Expect("|".join(NETWORK_CAUSES + ["data-unavailable", "client-idle"]), ("any_stall",),
                "no loss is scripted but the queue delays everything behind it, and overflows; "
                "the applications only pause between the interactive connection's requests")],
        link={"rate_mbit": {"s2c": 2}, "queue_pkts": {"s2c": 300}, "delay_ms": {"s2c": 10, "c2s": 10}},
        snaplen=128, mixed=True),
]


def by_name():
    return {s.name: s for s in SCENARIOS}
