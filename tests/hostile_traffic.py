#!/usr/bin/env python3
"""Hostile traffic on an interface, as fast as it can be sent, for
tests/test_monitor_hostile.py: a SYN flood (random sources), a port scan
(one source, every port, the target's resets), one-packet connections
(random endpoints, IPv4 and IPv6, each a lone data segment) and random
frames (garbage, and IPv4 headers with random contents).  Frames are sent
on an AF_PACKET socket; at the end, what was sent of each kind (and what
the socket refused) is printed as JSON.

    hostile_traffic.py IFACE SECONDS [SEED]
"""

import json
import os
import random
import socket
import struct
import sys
import time

ETH_IPV4, ETH_IPV6 = 0x0800, 0x86DD
VLAN_TPIDS = (b"\x81\x00", b"\x88\xa8")   # 802.1Q, 802.1ad
SYN, RST, PSH, ACK = 0x02, 0x04, 0x08, 0x10
SERVER_V4 = bytes([10, 99, 0, 1])
SCANNER_V4 = bytes([10, 98, 0, 9])
SERVER_V6 = bytes.fromhex("fd990000000000000000000000000001")


def ethernet(dst, src, kind):
    return dst + src + struct.pack("!H", kind)


def ipv4(src, dst, payload_len):
    return struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + payload_len, 0, 0x4000, 64, 6, 0, src, dst)


def ipv6(src, dst, payload_len):
    return struct.pack("!IHBB16s16s", 6 << 28, payload_len, 6, 64, src, dst)


def tcp(sport, dport, seq, ack, flags, payload=b""):
    return struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, 65535, 0, 0) + payload


class Traffic:
    def __init__(self, iface, seed):
        self.rng = random.Random(seed)
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self.sock.bind((iface, 0))
        with open("/sys/class/net/%s/address" % iface) as f:
            self.src_mac = bytes.fromhex(f.read().strip().replace(":", ""))
        self.dst_mac = b"\x02\x00\x00\x99\x00\x01"
        self.sent = {"syn-flood": 0, "port-scan": 0, "one-packet": 0, "garbage": 0}
        self.refused = 0
        self.port = 0
        self.noise = os.urandom(1 << 16)

    def send(self, kind, frame):
        try:
            self.sock.send(frame)
            self.sent[kind] += 1
        except OSError:
            self.refused += 1   # the socket's queue was full: not sent

    def random_v4(self):
        return struct.pack("!I", self.rng.getrandbits(32) | 0x0A000000 & 0xFFFFFFFF)

    def syn_flood(self):
        src = struct.pack("!I", self.rng.getrandbits(32))
        frame = ethernet(self.dst_mac, self.src_mac, ETH_IPV4) + ipv4(src, SERVER_V4, 20) + \
            tcp(self.rng.randrange(1024, 65536), 80, self.rng.getrandbits(32), 0, SYN)
        self.send("syn-flood", frame)

    def port_scan(self):
        self.port = self.port % 65535 + 1
        probe = ethernet(self.dst_mac, self.src_mac, ETH_IPV4) + ipv4(SCANNER_V4, SERVER_V4, 20) + \
            tcp(40000, self.port, 12345, 0, SYN)
        reset = ethernet(self.src_mac, self.dst_mac, ETH_IPV4) + ipv4(SERVER_V4, SCANNER_V4, 20) + \
            tcp(self.port, 40000, 0, 12346, RST | ACK)
        self.send("port-scan", probe)
        self.send("port-scan", reset)

    def one_packet(self):
        payload = self.noise[:100]
        seq, ack = self.rng.getrandbits(32), self.rng.getrandbits(32)
        if self.rng.random() < 0.25:
            src = bytes([0xFD, 0x98]) + self.rng.getrandbits(112).to_bytes(14, "big")
            frame = ethernet(self.dst_mac, self.src_mac, ETH_IPV6) + ipv6(src, SERVER_V6, 20 + len(payload))
        else:
            src = struct.pack("!I", self.rng.getrandbits(32))
            frame = ethernet(self.dst_mac, self.src_mac, ETH_IPV4) + ipv4(src, SERVER_V4, 20 + len(payload))
        frame += tcp(self.rng.randrange(1024, 65536), 443, seq, ack, PSH | ACK, payload)
        self.send("one-packet", frame)

    def garbage(self):
        n = self.rng.randrange(14, 1515)
        at = self.rng.randrange(0, len(self.noise) - n)
        body = self.noise[at:at + n]
        if self.rng.random() < 0.5:
            # An IPv4 ethertype over random bytes: lengths and headers that make no sense.
            body = self.dst_mac + self.src_mac + struct.pack("!H", ETH_IPV4) + body[14:]
        elif body[12:14] in VLAN_TPIDS and n < 20:
            # Linux frees a VLAN-tagged frame too short for its tag before any packet
            # socket sees it, and counts it nowhere: nobody could account for it.
            body = body[:12] + struct.pack("!H", ETH_IPV4) + body[14:]
        self.send("garbage", body)

    def run(self, seconds):
        end = time.monotonic() + seconds
        mix = [self.syn_flood] * 10 + [self.port_scan] * 3 + [self.one_packet] * 12 + [self.garbage] * 4
        while time.monotonic() < end:
            for make in mix:
                make()
            if self.rng.random() < 0.01:
                self.noise = os.urandom(1 << 16)


def main():
    iface, seconds = sys.argv[1], float(sys.argv[2])
    seed = sys.argv[3] if len(sys.argv) > 3 else "tapo"
    t = Traffic(iface, seed)
    started = time.monotonic()
    t.run(seconds)
    print(json.dumps({"sent": t.sent, "frames": sum(t.sent.values()), "refused": t.refused,
                      "seconds": round(time.monotonic() - started, 3)}))


if __name__ == "__main__":
    main()
