"""Constructed connections for the reports' tests (issue 28): an upload
whose client then idles, a 0.3 s transfer followed by a 9 s chain of
timeouts, and a connection whose SYN is answered only after two retries
and that carries no data."""

import sys

import pcapfile
from pcapfile import ACK, FIN, PSH, SYN

MSS = 1448


def upload_then_idle(t):
    """The client uploads 40 segments, then is idle for 2 s and closes."""
    c = pcapfile.Connection(client=("10.0.0.2", 41000), server=("10.0.0.1", 8080))
    recs = c.handshake(t)
    t += 0.06
    seq = 1
    for i in range(40):
        recs.append((t, c.packet(0, seq, 1, ACK, window=4096, payload=b"u" * MSS)))
        seq += MSS
        if i % 2 == 1:
            recs.append((t + 0.02, c.packet(1, 1, seq, ACK)))
        t += 0.001
    recs.append((t + 0.02, c.packet(1, 1, seq, ACK)))
    t += 2.0
    recs.append((t, c.packet(0, seq, 1, ACK | FIN, window=4096)))
    recs.append((t + 0.02, c.packet(1, 1, seq + 1, ACK | FIN)))
    recs.append((t + 0.04, c.packet(0, seq + 1, 2, ACK, window=4096)))
    return recs

def transfer_then_timeouts(t):
    """A 0.3 s response whose last segment is lost four times: a chain of
    timeouts of 0.5, 1, 2 and 4 s, then the ACK, 9.3 s after the start."""
    c = pcapfile.Connection(client=("10.0.0.2", 41001), server=("10.0.0.1", 8080))
    recs = c.handshake(t)
    t += 0.06
    recs.append((t, c.packet(0, 1, 1, ACK | PSH, window=4096, payload=b"GET /\r\n")))
    seq = 1
    t += 0.01
    for i in range(30):
        recs.append((t, c.packet(1, seq, 8, ACK, payload=b"x" * MSS)))
        seq += MSS
        if i % 2 == 1 and i < 29:
            recs.append((t + 0.05, c.packet(0, 8, seq, ACK, window=4096)))
        t += 0.01
    last = seq - MSS
    rto = 0.5
    for k in range(4):
        t += rto
        recs.append((t, c.packet(1, last, 8, ACK, payload=b"x" * MSS)))
        rto *= 2
    recs.append((t + 0.05, c.packet(0, 8, seq, ACK, window=4096)))
    return recs

def handshake_only(t):
    """A SYN answered after two retries, then a FIN: no data at all."""
    c = pcapfile.Connection(client=("10.0.0.2", 41002), server=("10.0.0.1", 8080))
    opts = pcapfile.tcp_options(mss=1460, wscale=7, sack_perm=True)
    recs = [(t, c.packet(0, 0, 0, SYN, options=opts)), (t + 1.0, c.packet(0, 0, 0, SYN, options=opts)),
            (t + 3.0, c.packet(0, 0, 0, SYN, options=opts)), (t + 3.05, c.packet(1, 0, 1, SYN | ACK, options=opts)),
            (t + 3.1, c.packet(0, 1, 1, ACK)), (t + 3.2, c.packet(0, 1, 1, ACK | FIN)),
            (t + 3.25, c.packet(1, 1, 2, ACK | FIN)), (t + 3.3, c.packet(0, 2, 2, ACK))]
    return recs

def write(path, *parts):
    """The connections given (functions of a start time), one second apart."""
    recs = []
    for i, part in enumerate(parts):
        recs += part(0.5 * i)
    pcapfile.write_pcap(path, sorted(recs, key=lambda r: r[0]))


def all_three(path):
    write(path, upload_then_idle, transfer_then_timeouts, handshake_only)


if __name__ == "__main__":
    all_three(sys.argv[1])
