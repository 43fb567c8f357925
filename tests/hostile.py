"""Hostile captures, built at test time (tests/test_hostile.py): each stresses
the state machine in one way a capture from the internet or an attacker
can.  Raw IP link type; checksums are left 0 in the large ones (Wireshark
does not check them by default).

    python3 tests/hostile.py OUT_DIR [NAME...]     writes NAME.pcap files
"""

import os
import struct
import sys

import pcapfile
from pcapfile import ACK, FIN, PSH, SYN, Connection, tcp_options

YEAR_S = 365 * 86400.0
MSS = 1460


def response(conn, t, first_seq, segments, ack, gap=0.0001, size=MSS):
    """The server's segments and the client's ACK of every second one."""
    out, seq = [], first_seq
    for i in range(segments):
        out.append((t, conn.packet(1, seq, ack, ACK | (PSH if i == segments - 1 else 0),
                                   payload=b"x" * size)))
        seq += size
        if i % 2 == 1 or i == segments - 1:
            out.append((t + 0.05, conn.packet(0, ack, seq, ACK, window=4096)))
        t += gap
    return sorted(out, key=lambda r: r[0]), seq


def time_travel():
    """Timestamps that go back 10 s in the middle of a response, and a jump
    of twenty years forward before the next request."""
    c = Connection()
    recs = c.handshake(100.0)
    recs.append((100.06, c.packet(0, 1, 1, ACK | PSH, window=4096, payload=b"GET /\r\n")))
    part, seq = response(c, 100.07, 1, 6, 8)
    recs += part
    back, seq = response(c, 90.0, seq, 6, 8)          # the clock steps back 10 s
    recs += back
    recs.append((90.0 + 20 * YEAR_S, c.packet(0, 8, seq, ACK | PSH, window=4096, payload=b"GET /2\r\n")))
    more, seq = response(c, 90.1 + 20 * YEAR_S, seq, 4, 16)
    return recs + more


def absurd_options():
    """Four connections whose SYNs carry MSS 0, 1 and 65535 and a window
    scale of 200 (RFC 7323 allows 14), each with a response and a tail
    loss resent after 1 s."""
    recs, t = [], 0.0
    for i, (mss, ws) in enumerate(((0, 7), (1, 7), (65535, 7), (1460, 200))):
        c = Connection(client=("10.0.0.2", 41000 + i))
        opts = tcp_options(mss=mss, wscale=ws, sack_perm=True)
        recs += c.handshake(t, syn_options=opts)
        recs.append((t + 0.06, c.packet(0, 1, 1, ACK | PSH, window=4096, payload=b"GET /\r\n")))
        part, seq = response(c, t + 0.07, 1, 5, 8)
        recs += part[:-1]                              # the last segment is lost: no ACK
        last = seq - MSS
        recs.append((t + 1.2, c.packet(1, last, 8, ACK | PSH, payload=b"x" * MSS)))
        recs.append((t + 1.25, c.packet(0, 8, seq, ACK, window=4096)))
        t += 10.0
    return recs


def wild_sacks():
    """SACK blocks far outside the window, inverted, empty, and overlapping
    each other and the cumulative ACK in every way."""
    c = Connection()
    recs = c.handshake(0.0)
    recs.append((0.06, c.packet(0, 1, 1, ACK | PSH, window=4096, payload=b"GET /\r\n")))
    seq, t = 1, 0.07
    for i in range(20):
        recs.append((t, c.packet(1, seq, 8, ACK, payload=b"x" * MSS)))
        seq += MSS
        t += 0.0001
    a = 1 + MSS   # the second segment is lost
    blocks = [
        [(a + 2 * MSS, a + 3 * MSS)],                            # ordinary
        [(a + 10**9, a + 10**9 + MSS)],                          # a gigabyte beyond
        [(a - 3 * 10**9, a - 2 * 10**9)],                        # far below, across the wrap
        [(a + 5 * MSS, a + 4 * MSS)],                            # inverted
        [(a + MSS, a + MSS)],                                    # empty
        [(a, a + 2 * MSS), (a + MSS, a + 3 * MSS)],              # overlapping each other
        [(1, a + MSS), (a + MSS, a + 6 * MSS)],                  # straddling the ACK
        [(a + 2 * MSS, a + 20 * MSS), (a + 3 * MSS, a + 4 * MSS), (a + 2 * MSS, a + 20 * MSS),
         (a + 20 * MSS, a + 2**31)],                             # inside, duplicate, huge
    ]
    for i, b in enumerate(blocks):
        raw = [(c.isn[1] + left, c.isn[1] + right) for left, right in b]   # edges are raw
        recs.append((t + 0.05 + i * 0.0001, c.packet(0, 8, a, ACK, window=4096,
                                                      options=tcp_options(sack=raw))))
    recs.append((t + 0.06, c.packet(1, a, 8, ACK, payload=b"x" * MSS)))   # lost again
    recs.append((t + 1.06, c.packet(1, a, 8, ACK, payload=b"x" * MSS)))   # the RTO's copy
    recs.append((t + 1.11, c.packet(0, 8, seq, ACK, window=4096)))
    return recs


def raw_segment(src_port, dst_port, seq, ack, flags, length, ip_id, src=b"\x0a\0\0\x02", dst=b"\x0a\0\0\x01",
                window=4096):
    """An IPv4 packet header claiming length payload bytes, none captured."""
    total = 40 + length
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, min(total, 65535), ip_id & 0xffff, 0x4000, 64, 6, 0, src, dst)
    tcp = struct.pack("!HHIIBBHHH", src_port, dst_port, seq & 0xffffffff, ack & 0xffffffff, 0x50, flags,
                      window, 0, 0)
    return ip + tcp, min(total, 65535)


def sequence_wraps(wraps=3):
    """One connection that sends wraps x 4 GiB in segments of 65495 bytes,
    captured 40 bytes per packet; its last segment is lost and resent by
    the RTO after 1 s."""
    big = 65535 - 40
    recs = []
    c = Connection()
    recs += c.handshake(0.0, syn_options=tcp_options(mss=big, wscale=14, sack_perm=True))
    t, seq, isn_s, isn_c = 0.1, 1, c.isn[1], c.isn[0]
    segments = wraps * (2**32 // big) + 1
    ip_id = 1
    for i in range(segments):
        hdr, orig = raw_segment(80, 40000, isn_s + seq, isn_c + 1, ACK, big, ip_id,
                                src=b"\x0a\0\0\x01", dst=b"\x0a\0\0\x02")
        ip_id += 1
        last = i == segments - 1
        recs.append((t, hdr, orig))
        seq += big
        if i % 8 == 7 and not last:
            ack, _ = raw_segment(40000, 80, isn_c + 1, isn_s + seq, ACK, 0, i, window=65535)
            recs.append((t + 0.02, ack, 40))
        t += 0.00005
    hdr, orig = raw_segment(80, 40000, isn_s + seq - big, isn_c + 1, ACK | PSH, big, ip_id,
                            src=b"\x0a\0\0\x01", dst=b"\x0a\0\0\x02")
    recs.append((t + 1.0, hdr, orig))                  # the last segment was lost: the RTO resends it
    ack, _ = raw_segment(40000, 80, isn_c + 1, isn_s + seq, ACK, 0, 1, window=65535)
    recs.append((t + 1.02, ack, 40))
    return recs


def syn_flood(count=100000):
    """count half-open connections: a SYN each from another address and
    port, a SYN-ACK for every second one, resent after 1 s for a tenth."""
    recs, t = [], 0.0
    for i in range(count):
        src = bytes([10, 1 + (i // 60000), (i // 250) % 250, i % 250])
        port = 1024 + i % 60000
        syn = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40, i & 0xffff, 0, 64, 6, 0, src, b"\x0a\0\0\x01")
        syn += struct.pack("!HHIIBBHHH", port, 80, i * 7919, 0, 0x50, SYN, 1024, 0, 0)
        recs.append((t, syn))
        if i % 2 == 0:
            sa = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40, 0, 0x4000, 64, 6, 0, b"\x0a\0\0\x01", src)
            sa += struct.pack("!HHIIBBHHH", 80, port, (i * 104729) & 0xffffffff, i * 7919 + 1, 0x50, SYN | ACK,
                              65535, 0, 0)
            recs.append((t + 0.00001, sa))
            if i % 20 == 0:
                recs.append((t + 1.00001, sa))
        t += 0.00002
    recs.sort(key=lambda r: r[0])
    return recs


def tiny_segments(count=1000000):
    """One connection of count one-byte segments, each ACKed, 100 us apart,
    with a 0.5 s pause of the sender halfway."""
    recs = []
    c = Connection()
    recs += c.handshake(0.0)
    recs.append((0.06, c.packet(0, 1, 1, ACK | PSH, window=4096, payload=b"G")))
    srv = (b"\x0a\0\0\x01", b"\x0a\0\0\x02")
    t, isn_s, isn_c = 0.1, c.isn[1], c.isn[0]
    for i in range(count):
        if i == count // 2:
            t += 0.5
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 41, i & 0xffff, 0x4000, 64, 6, 0, *srv)
        seg = struct.pack("!HHIIBBHHH", 80, 40000, (isn_s + 1 + i) & 0xffffffff, isn_c + 2, 0x50,
                          ACK | PSH, 512, 0, 0) + b"x"
        recs.append((t, ip + seg))
        ack = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40, i & 0xffff, 0x4000, 64, 6, 0, srv[1], srv[0])
        ack += struct.pack("!HHIIBBHHH", 40000, 80, isn_c + 2, (isn_s + 2 + i) & 0xffffffff, 0x50, ACK,
                           4096, 0, 0)
        recs.append((t + 0.00005, ack))
        t += 0.0001
    return recs


def reused_ports(count=1000):
    """count connections one after another on the same addresses and ports,
    each with a new ISN, a request, a 0.3 s think time, a response and a
    close.  Every second one is first answered by a SYN-ACK with another ISN
    (a server that restarted), replaced by the one the client acknowledges."""
    recs, t = [], 0.0
    for i in range(count):
        c = Connection(isn=(1000 + i * 100003, 5000000 + i * 1000003))
        if i % 2:
            other = Connection(isn=(c.isn[0], 777 + i))
            recs.append((t + 0.00005, other.packet(1, 0, 1, SYN | ACK, options=tcp_options(mss=1460))))
        recs += c.handshake(t)
        recs.append((t + 0.06, c.packet(0, 1, 1, ACK | PSH, window=4096, payload=b"GET /\r\n")))
        part, seq = response(c, t + 0.36, 1, 2, 8)
        recs += part
        recs.append((t + 0.5, c.packet(0, 8, seq, ACK | FIN, window=4096)))
        recs.append((t + 0.5001, c.packet(1, seq, 9, ACK | FIN)))
        recs.append((t + 0.55, c.packet(0, 9, seq + 1, ACK, window=4096)))
        t += 1.0
    return sorted(recs, key=lambda r: r[0])


def icmp_error(router, to, quoted_ip, v6=False):
    """An ICMP (or ICMPv6) destination unreachable from router quoting the
    start of quoted_ip (its IP header and 28 bytes: the TCP header's first
    20 and 8 more), as Linux quotes."""
    body = quoted_ip[:(40 if v6 else 20) + 28]
    if v6:
        icmp = struct.pack("!BBHI", 1, 4, 0, 0) + body
        return struct.pack("!IHBB", 0x60000000, len(icmp), 58, 64) + pcapfile._ipv6_bytes(router) + \
            pcapfile._ipv6_bytes(to) + icmp
    icmp = struct.pack("!BBHHH", 3, 4, 0, 0, 1400) + body
    icmp = icmp[:2] + struct.pack("!H", pcapfile._checksum(icmp)) + icmp[4:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(icmp), 7, 0, 64, 1, 0, pcapfile._ipv4_bytes(router),
                     pcapfile._ipv4_bytes(to))
    return ip + icmp


def icmp_quoted():
    """A response with ICMP errors in the middle: one quoting a server
    segment (needs fragmentation), one quoting a SYN of the client with
    another ISN (Wireshark starts a new stream on it), then the response
    goes on and ends with a 0.4 s server pause."""
    c = Connection()
    recs = c.handshake(0.0)
    recs.append((0.06, c.packet(0, 1, 1, ACK | PSH, window=4096, payload=b"GET /\r\n")))
    part, seq = response(c, 0.07, 1, 4, 8)
    recs += part
    quoted_data = c.packet(1, 1, 8, ACK, payload=b"x" * MSS)
    recs.append((0.2, icmp_error("10.0.0.254", "10.0.0.1", quoted_data)))
    quoted_syn = c.packet(0, 999, 0, SYN, options=tcp_options(mss=1460))
    recs.append((0.21, icmp_error("10.0.0.254", "10.0.0.2", quoted_syn)))
    more, seq = response(c, 0.3, seq, 4, 8)
    recs += more
    last, seq = response(c, 0.8, seq, 2, 8)
    return sorted(recs + last, key=lambda r: r[0])


BUILDERS = {
    "icmp-quoted": icmp_quoted,
    "time-travel": time_travel,
    "absurd-options": absurd_options,
    "wild-sacks": wild_sacks,
    "sequence-wraps": sequence_wraps,
    "syn-flood": syn_flood,
    "tiny-segments": tiny_segments,
    "reused-ports": reused_ports,
}


def write(out_dir, name):
    path = os.path.join(out_dir, name + ".pcap")
    pcapfile.write_pcap(path, BUILDERS[name]())
    os.chmod(path, 0o644)
    return path


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    os.makedirs(sys.argv[1], exist_ok=True)
    for n in sys.argv[2:] or list(BUILDERS):
        print(write(sys.argv[1], n))
