"""Captures built packet by packet for what an operator meets at the edges
of a connection (issue 19): unanswered SYNs, a FIN retried at teardown,
and connections seen mid-stream whose client and server only the ports
tell.  Each builder says how its capture was made; test_operator.py
asserts what follows from that.  Raw IP link type (trust_captures.Flow).

    python3 tests/operator_captures.py OUT_DIR [NAME...]     writes NAME.pcap files
"""

import os
import sys

from pcapfile import ACK, FIN, SYN, tcp_options
from trust_captures import CLIENT, MSS, SERVER, Flow, exchange


def syn_unanswered():
    """At the client: its SYN to 10.0.0.1:80 goes unanswered, resent after
    1, 2 and 4 s (Linux's initial RTO, doubled): a host that is down, or a
    filter that drops the SYN.  Three stalls of the handshake."""
    f = Flow()
    opts = tcp_options(mss=MSS, wscale=7, sack_perm=True)
    t = 0.0
    for wait in (0.0, 1.0, 2.0, 4.0):
        t += wait
        f.add(t, f.conn.packet(CLIENT, 0, 0, SYN, options=opts, ip_id=f.id(CLIENT)))
    return f


def fin_retried():
    """At the server: a response delivered and acknowledged, then the
    server's FIN, whose ACK never comes back (the client is gone); the
    server resends the FIN after 0.3, 0.6 and 1.2 s.  Stalls of the
    teardown, ended by the server's own retransmissions."""
    f = Flow()
    t = f.handshake(0.0, 0.05, "server")
    t = exchange(f, t + 0.05, 0.05, 4, "server")
    fin = f.send(t + 0.01, SERVER, 0, flags=ACK | FIN)
    at = t + 0.01
    for backoff in (0.3, 0.6, 1.2):
        at += backoff
        f.send(at, SERVER, 0, seq=fin, flags=ACK | FIN)
    return f


def _midstream(client_port, server_port, upload):
    """A connection already running when the capture started (no
    handshake), seen at the server: exchanges, then a 1.5 s pause of the
    sender in the middle of its data."""
    f = Flow(client_port=client_port)
    f.conn.ends = (("10.0.0.2", client_port), ("10.0.0.1", server_port))
    f.next_seq = [70001, 90001]
    f.received = [90001, 70001]
    sender, receiver = (CLIENT, SERVER) if upload else (SERVER, CLIENT)
    t = 10.0
    for burst in range(3):
        for _ in range(4):
            f.send(t, sender, MSS)
            t += 0.0001
        f.deliver(receiver, f.next_seq[sender])
        t += 0.05
        f.send(t, receiver, 0)
        t += 1.5 if burst == 1 else 0.001
    return f


def midstream_download():
    """Mid-stream: 10.0.0.1:443 sends to 10.0.0.2:51000 (a download from
    an HTTPS server): the server is the system port's side."""
    return _midstream(51000, 443, upload=False)


def midstream_upload():
    """Mid-stream: 10.0.0.2:51000 sends to 10.0.0.1:22 (an upload over
    SSH): the server is still the system port's side, though it sends
    nothing but ACKs."""
    return _midstream(51000, 22, upload=True)


def midstream_request_response():
    """Mid-stream: 10.0.0.1:8080 answers 10.0.0.2:40000 (an application
    server on a port below the ephemeral range, its client in it)."""
    return _midstream(40000, 8080, upload=False)


CAPTURES = {name: fn for name, fn in sorted(globals().items())
            if callable(fn) and not name.startswith("_") and fn.__module__ == __name__ and name != "write"}


def write(out_dir, name):
    path = os.path.join(out_dir, name + ".pcap")
    CAPTURES[name]().write(path)
    return path


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for n in sys.argv[2:] or CAPTURES:
        print(write(out, n))
