"""Classic pcap files and TCP/IP packets, written and read by hand, for the
captures the tests build (hostile ones, mutated ones).  Nothing here
depends on Wireshark; editcap converts other formats to classic pcap.
"""

import os
import struct
import subprocess
import tempfile

LINKTYPE_RAW = 101          # raw IPv4/IPv6, as the lab's TUN captures
LINKTYPE_ETHERNET = 1

FIN, SYN, RST, PSH, ACK = 0x01, 0x02, 0x04, 0x08, 0x10


def write_pcap(path, records, linktype=LINKTYPE_RAW, snaplen=65535):
    """records: iterable of (time_s, bytes) or (time_s, bytes, original_length)."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, snaplen, linktype))
        for rec in records:
            t, data = rec[0], rec[1]
            orig = rec[2] if len(rec) > 2 else len(data)
            sec = int(t // 1)
            usec = int(round((t - sec) * 1e6))
            if usec >= 1000000:
                sec, usec = sec + 1, usec - 1000000
            f.write(struct.pack("<IIII", sec & 0xffffffff, usec, len(data), orig))
            f.write(data)


def read_pcap(path):
    """(linktype, [(time_s, bytes, original_length)]) of a classic pcap file;
    other formats are converted with editcap first."""
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or struct.unpack("<I", head[:4])[0] not in (0xa1b2c3d4, 0xa1b23c4d):
        # Converted beside nothing: the source may be read-only or shared.
        with tempfile.TemporaryDirectory(prefix="tapo-pcap-") as tmp:
            converted = os.path.join(tmp, "converted.pcap")
            subprocess.run(["editcap", "-F", "pcap", path, converted], check=True, capture_output=True)
            with open(converted, "rb") as f:
                data = f.read()
    else:
        with open(path, "rb") as f:
            data = f.read()
    magic, _, _, _, _, _, linktype = struct.unpack("<IHHiIII", data[:24])
    scale = 1e-9 if magic == 0xa1b23c4d else 1e-6
    records, pos = [], 24
    while pos + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack("<IIII", data[pos:pos + 16])
        pos += 16
        records.append((sec + frac * scale, data[pos:pos + incl], orig))
        pos += incl
    return linktype, records


def _checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def tcp_options(mss=None, wscale=None, sack_perm=False, sack=(), ts=None):
    """TCP options, padded to 4 bytes: sack is [(left, right)], ts (tsval, tsecr)."""
    out = b""
    if mss is not None:
        out += struct.pack("!BBH", 2, 4, mss & 0xffff)
    if wscale is not None:
        out += struct.pack("!BBBB", 1, 3, 3, wscale & 0xff)
    if sack_perm:
        out += struct.pack("!BBBB", 1, 1, 4, 2)
    if ts is not None:
        out += struct.pack("!BBBBII", 1, 1, 8, 10, ts[0] & 0xffffffff, ts[1] & 0xffffffff)
    if sack:
        out += struct.pack("!BBBB", 1, 1, 5, 2 + 8 * len(sack))
        for left, right in sack:
            out += struct.pack("!II", left & 0xffffffff, right & 0xffffffff)
    out += b"\x01" * (-len(out) % 4)
    return out[:40]


def tcp_segment(src, dst, sport, dport, seq, ack, flags, window, payload=b"", options=b""):
    hlen = 20 + len(options)
    header = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xffffffff, ack & 0xffffffff,
                         (hlen // 4) << 4, flags, window & 0xffff, 0, 0) + options
    seg = header + payload
    if ":" in src:
        pseudo = _ipv6_bytes(src) + _ipv6_bytes(dst) + struct.pack("!IxxxB", len(seg), 6)
    else:
        pseudo = _ipv4_bytes(src) + _ipv4_bytes(dst) + struct.pack("!xBH", 6, len(seg))
    csum = _checksum(pseudo + seg)
    return seg[:16] + struct.pack("!H", csum) + seg[18:]


def _ipv4_bytes(a):
    return bytes(int(x) for x in a.split("."))


def _ipv6_bytes(a):
    import ipaddress
    return ipaddress.IPv6Address(a).packed


def ip_packet(src, dst, tcp, ip_id=0, ttl=64):
    """An IPv4 or IPv6 packet around a TCP segment (raw IP link type);
    ttl: the TTL or hop limit as captured."""
    if ":" in src:
        return struct.pack("!IHBB", 0x60000000, len(tcp), 6, ttl) + _ipv6_bytes(src) + _ipv6_bytes(dst) + tcp
    header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), ip_id & 0xffff, 0x4000, ttl, 6, 0,
                         _ipv4_bytes(src), _ipv4_bytes(dst))
    header = header[:10] + struct.pack("!H", _checksum(header)) + header[12:]
    return header + tcp


class Connection:
    """Builds the packets of one TCP connection between a client and a
    server: raw sequence numbers from the ISNs, IPv4 IDs one by one."""

    def __init__(self, client=("10.0.0.2", 40000), server=("10.0.0.1", 80), isn=(1000, 5000000)):
        self.ends = (client, server)
        self.isn = list(isn)
        self.ip_id = [1, 1]
        self.ttl = [64, 64]    # each side's TTL as captured: 64, crossed no router

    def packet(self, side, seq, ack, flags, window=65535, payload=b"", options=b"", ip_id=None):
        """side 0: the client sends, 1: the server; seq and ack relative."""
        (src, sport), (dst, dport) = self.ends[side], self.ends[1 - side]
        ack_raw = self.isn[1 - side] + ack if flags & ACK else 0
        tcp = tcp_segment(src, dst, sport, dport, self.isn[side] + seq, ack_raw, flags, window,
                          payload, options)
        if ip_id is None:
            ip_id = self.ip_id[side]
            self.ip_id[side] += 1
        return ip_packet(src, dst, tcp, ip_id, self.ttl[side])

    def handshake(self, t, rtt=0.05, syn_options=None):
        opts = syn_options if syn_options is not None else tcp_options(mss=1460, wscale=7, sack_perm=True)
        return [(t, self.packet(0, 0, 0, SYN, options=opts)),
                (t + 0.0001, self.packet(1, 0, 1, SYN | ACK, options=opts)),
                (t + rtt, self.packet(0, 1, 1, ACK, window=512))]


def _block(kind, body):
    body += b"\0" * (-len(body) % 4)
    return struct.pack("<II", kind, len(body) + 12) + body + struct.pack("<I", len(body) + 12)


def write_pcapng(path, records, linktype=LINKTYPE_RAW, names=()):
    """A pcapng file: records as write_pcap's, one interface, and before
    them one name resolution block per (ipv4 address, host name) list in
    names."""
    with open(path, "wb") as f:
        f.write(_block(0x0a0d0d0a, struct.pack("<IHHq", 0x1a2b3c4d, 1, 0, -1)))
        f.write(_block(1, struct.pack("<HHI", linktype, 0, 65535)))
        for entries in names:
            body = b""
            for address, name in entries:
                value = _ipv4_bytes(address) + name.encode() + b"\0"
                body += struct.pack("<HH", 1, len(value)) + value + b"\0" * (-len(value) % 4)
            f.write(_block(4, body + struct.pack("<HH", 0, 0)))
        for rec in records:
            t, data = rec[0], rec[1]
            orig = rec[2] if len(rec) > 2 else len(data)
            usec = int(round(t * 1e6))
            f.write(_block(6, struct.pack("<IIIII", 0, usec >> 32, usec & 0xffffffff, len(data), orig) + data))
