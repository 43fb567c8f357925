"""Turns a scenario's expectations into an expected-results file.

The frames are found from plain TCP fields that tshark prints (sequence
numbers, flags, windows) and from the relay's log of what it dropped and
held, never from TAPO's output: a label follows from how the capture was
made, so that the corpus test can catch TAPO being wrong.

Expected-results format (TSV, '#' starts a comment):
    frame-or-range  cause  one-pass-cause  reason
A range "a-b" means: every stall TAPO finds in frames a..b has that cause,
and there is at least one.
"""

import subprocess

SERVER_PORT = 8080
FIELDS = ["frame.number", "frame.time_relative", "tcp.stream", "tcp.srcport", "tcp.seq_raw",
          "tcp.ack_raw", "tcp.len", "tcp.flags", "tcp.window_size", "tcp.options.sack.count"]
# A fast retransmission leaves as soon as the ACK that brought its loss
# signals is processed: within this much of it, seconds.
FAST_RELEASE_S = 0.005
FIN, SYN = 0x01, 0x02
# Spec section 3: no gap shorter than this is a stall, seconds.
MIN_STALL_S = 0.010


class Found:
    """A locator's frame where one pass may also give other causes than the
    expectation's own: what it cannot know yet at that packet."""

    def __init__(self, frame, one_pass_also, why):
        self.frame = frame
        self.one_pass_also = one_pass_also   # causes, "|"
        self.why = why


class Frame:
    def __init__(self, row):
        self.number = int(row[0])
        self.time = float(row[1])
        self.stream = int(row[2]) if row[2] else -1
        self.from_server = row[3] == str(SERVER_PORT)
        self.seq_raw = int(row[4]) if row[4] else 0
        self.ack_raw = int(row[5]) if row[5] else 0
        self.len = int(row[6]) if row[6] else 0
        self.flags = int(row[7], 16) if row[7] else 0
        self.window = int(row[8]) if row[8] else 0
        self.sack_blocks = int(row[9]) if row[9] else 0


def read_frames(pcap, tshark_prefix=()):
    cmd = list(tshark_prefix) + ["tshark", "-n", "-r", pcap, "-T", "fields", "-E", "separator=/t"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    frames = []
    for line in out.splitlines():
        row = line.split("\t")
        if len(row) == len(FIELDS) and row[2]:
            frames.append(Frame(row))
    return frames


def handshake_isns(frames):
    """Raw ISNs of each connection (tcp.stream order), from its SYN and SYN-ACK."""
    isns = {}
    for f in frames:
        if f.flags & SYN:
            side = "server" if f.from_server else "client"
            isns.setdefault(f.stream, {}).setdefault(side, f.seq_raw)
    return [isns[s] for s in sorted(isns)]


class Locator:
    """Finds frames in one capture, given each connection's raw ISNs and
    which endpoint sends the data ("server", or "client" for an upload)."""

    def __init__(self, frames, isns, relay_log, mss, sender="server"):
        self.frames = frames
        self.isns = isns
        self.relay_log = relay_log
        self.mss = mss
        self.sender = sender
        self.sender_dir = "s2c" if sender == "server" else "c2s"

    def _rel(self, f, raw, side):
        return (raw - self.isns[f.stream][side]) % 2**32

    def _from_sender(self, f):
        return f.from_server == (self.sender == "server")

    def _sender_data(self, conn):
        return [f for f in self.frames if f.stream == conn and self._from_sender(f) and f.len > 0]

    def _server_data(self, conn):
        return [f for f in self.frames if f.stream == conn and f.from_server and f.len > 0]

    def _client(self, conn):
        return [f for f in self.frames if f.stream == conn and not f.from_server]

    def _copies(self, rel_seq, conn):
        return [f for f in self._sender_data(conn) if self._rel(f, f.seq_raw, self.sender) == rel_seq]

    def retx(self, rel_seq, n, conn=0):
        copies = self._copies(rel_seq, conn)
        if len(copies) <= n:
            raise LookupError("segment %d was sent %d times, no retransmission %d"
                              % (rel_seq, len(copies), n))
        return copies[n].number

    def dropped_retx(self, k, n, conn=0):
        """The n-th retransmission of the k-th segment the relay dropped
        (segment boundaries depend on the windows, the log knows them)."""
        drops = [e for e in self.relay_log
                 if e["event"] == "drop" and e["dir"] == self.sender_dir and e["conn"] == conn]
        return self.retx(drops[k]["seq"], n, conn)

    def sack_released_retx(self, rel_seq, n, conn=0):
        """The n-th retransmission of a segment whose first retransmission
        left right after an ACK carrying SACK blocks (a fast retransmission,
        however long after the original); fails when the run did not do
        that."""
        first = self.retx(rel_seq, 1, conn)
        before = [f for f in self.frames if f.stream == conn and not self._from_sender(f)
                  and f.number < first]
        released = next((f for f in reversed(before)), None)
        t_first = next(f.time for f in self.frames if f.number == first)
        if released is None or not released.sack_blocks or t_first - released.time > FAST_RELEASE_S:
            raise LookupError("the first retransmission of %d was not released by a SACK" % rel_seq)
        return self.retx(rel_seq, n, conn)

    def server_seq(self, rel_seq, conn=0):
        for f in self._server_data(conn):
            if self._rel(f, f.seq_raw, "server") == rel_seq:
                return f.number
        raise LookupError("no server segment at %d" % rel_seq)

    def syn(self, n, conn=0):
        """The n-th SYN of the client (0: the first)."""
        syns = [f for f in self._client(conn) if f.flags & SYN]
        return syns[n].number

    def request(self, n, conn=0):
        seen, starts = set(), []
        for f in self._client(conn):
            rel = self._rel(f, f.seq_raw, "client")
            if f.len > 0 and rel not in seen:
                seen.add(rel)
                starts.append(f.number)
        return starts[n - 1]

    def think_end(self, n, conn=0):
        """The server's packet that ended its silence after request n: its
        answer, or the bare ACK its delayed-ACK timer sent while the
        application still thought (a think time near Linux's 40 ms minimum
        delayed ACK, stretched on a loaded machine).  At that ACK one pass
        cannot know yet whether the answer or more of the request follows
        (a request completed after its ACK is the client's wait)."""
        after = self.request(n, conn)
        previous = next(f.time for f in self.frames if f.number == after)
        for f in self.frames:
            if f.stream != conn or f.number <= after:
                continue
            if f.from_server and f.time - previous >= MIN_STALL_S:
                if f.len > 0:
                    return f.number
                return Found(f.number, "packet-delay",
                             "; its delayed ACK ended the silence before the answer: one pass may read the "
                             "client's wait (packet-delay)")
            previous = f.time
        raise LookupError("no silence after request %d" % n)

    def response(self, n, conn=0):
        after = self.request(n, conn)
        for f in self._server_data(conn):
            if f.number > after:
                return f.number
        raise LookupError("no response to request %d" % n)

    def client_fin(self, conn=0):
        for f in self._client(conn):
            if f.flags & FIN:
                return f.number
        raise LookupError("no client FIN")

    def nth_retx_frame(self, n, conn=0):
        top, count = 0, 0
        for f in self._sender_data(conn):
            end = self._rel(f, f.seq_raw, self.sender) + f.len
            if end <= top:
                count += 1
                if count == n:
                    return f.number
            top = max(top, end)
        raise LookupError("fewer than %d retransmissions" % n)

    def hold_release(self, index, conn=0):
        holds = [e for e in self.relay_log if e["event"] == "hold" and e["conn"] == conn]
        triggers = []
        for e in holds:
            if not triggers or e["release"] != triggers[-1]["release"]:
                triggers.append(e)
        trigger = triggers[index]
        for f in self._client(conn):
            if f.flags & 0x10 and self._rel(f, f.ack_raw, "server") >= trigger["ack"]:
                return f.number
        raise LookupError("held packets never arrived")

    def closed_window_span(self, conn=0):
        closed = [f.number for f in self._client(conn) if f.window < self.mss and not f.flags & SYN]
        data = self._server_data(conn)
        if not closed or not data:
            raise LookupError("the client's window never closed")
        return (closed[0], data[-1].number)

    def acks_ending_open_window_gaps(self, conn=0):
        """Inside the closed-window span, the reader's packets that end a gap
        begun while its last advertised window was open (one MSS or more):
        the server used that window up and the reader's delayed ACK ended
        the gap.  The window at a stall's start decides (spec rule 2): open,
        such a gap is the ACK's delay, packet-delay, when it is a stall at
        all (the reader's delayed-ACK timer against the threshold: a stall
        in some runs, not in others)."""
        first, last = self.closed_window_span(conn)
        found, window = [], None
        for f in self._client(conn):
            if first <= f.number <= last and window is not None and window >= self.mss:
                found.append(f.number)
            window = f.window
        return found

    def drain_span(self, conn=0):
        """After the last byte of the response, up to the client's FIN."""
        return (self._server_data(conn)[-1].number + 1, self.client_fin(conn))

    def unscripted_retransmissions(self):
        """The data sender's retransmissions of segments the relay never
        dropped or held ACKs for: a timer that this run's timing fired (a
        scheduling hiccup of a few milliseconds is a silence on a LAN path).
        [(frame, resends the last data sent)]"""
        lost = ("drop", "loss", "queue-drop")
        if any(e["event"] == "hold" or (e["event"] in lost and e["dir"] != self.sender_dir)
               for e in self.relay_log):
            return []   # lost or held feedback: the scenario's own retransmissions
        found = []
        for conn in range(len(self.isns)):
            dropped = {e["seq"] for e in self.relay_log
                       if e["event"] in lost and e["dir"] == self.sender_dir and e["conn"] == conn}
            top = 0
            for f in self._sender_data(conn):
                start = self._rel(f, f.seq_raw, self.sender)
                end = start + f.len
                if end <= top and not any(start <= d < end for d in dropped):
                    found.append((f.number, end == top))
                top = max(top, end)
        return found

    def any_stall(self):
        """Every stall of the capture: the expectation names the causes allowed."""
        return "*"

    def find(self, locator):
        name, args = locator[0], locator[1:]
        return getattr(self, name)(*args)


def format_frames(found):
    if isinstance(found, tuple):
        return "%d-%d" % found
    return str(found)


# What a timer's retransmission of data the receiver already had can be
# (spec rule 1, first retransmission: no double, no dupthres question),
# and what one pass may say before the DSACK shows it spurious.
UNSCRIPTED_TAIL = ("tail", "tail")
UNSCRIPTED_OTHER = ("tail|small-cwnd|small-rwnd|ack-delay",
                    "tail|small-cwnd|small-rwnd|continuous-loss|ack-delay|undetermined")


def unscripted_lines(locator, covered):
    """Optional lines for retransmissions the scenario did not script: if
    TAPO ends a stall there, its cause must fit a timer resending data that
    arrived."""
    def is_covered(frame):
        return any(frame == c if isinstance(c, int) else c[0] <= frame <= c[1] for c in covered)
    lines = []
    for frame, last in locator.unscripted_retransmissions():
        if is_covered(frame):
            continue
        cause, one_pass = UNSCRIPTED_TAIL if last else UNSCRIPTED_OTHER
        lines.append("?%d\t%s\t%s\tnot scripted: a timer resent data the relay never dropped "
                     "(this run's timing: a silence of a few milliseconds on a fast path)%s" % (
                         frame, cause, one_pass, ", the last data sent: tail" if last else ""))
    return lines


def write_expected(path, scenario, sidecar, locator):
    lines = [
        "# %s.pcap: %s" % (scenario.name, scenario.description),
        "# made by test-captures/lab/lab.py %s (%s); see %s.lab.json" % (
            scenario.name, sidecar.get("made", ""), scenario.name),
        "# frame\tcause\tone-pass-cause\treason",
    ]
    covered = []
    for e in scenario.expect:
        found = locator.find(e.locator)
        if isinstance(found, list):
            # Frames where a stall may or may not show: if one does, it has
            # the cause (a line of its own outranks a range around it).
            covered.extend(found)
            lines.extend("?%d\t%s\t%s\t%s" % (f, e.cause, e.one_pass, e.reason) for f in found)
            continue
        one_pass, reason = e.one_pass, e.reason
        if isinstance(found, Found):
            one_pass, reason, found = one_pass + "|" + found.one_pass_also, reason + found.why, found.frame
        covered.append(found)
        lines.append("%s\t%s\t%s\t%s" % (format_frames(found), e.cause, one_pass, reason))
    if "*" not in covered:
        lines += unscripted_lines(locator, covered)
    with open(path, "w") as out:
        out.write("\n".join(lines) + "\n")
