#!/usr/bin/env python3
"""Builds a long capture from the labelled corpus for benchmarks: COPIES
copies of every sender-side corpus capture, one after another in time, each
copy's client at another address so that every connection is a new one (as
on a busy server), and NUM_PARALLEL copies interleaved at once so that many
connections are open together.

    scripts/make_bench_capture.py OUT.pcap PACKETS [--parallel N] [--snaplen B]

Writes at least PACKETS packets (raw IP link type, as the corpus), cut to
--snaplen bytes (default 96: headers only; TCP lengths come from the IP
header).  Nothing is shuffled: it is real Linux TCP, repeated.
"""

import argparse
import glob
import heapq
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import pcapfile  # noqa: E402

CORPUS = os.path.join(HERE, "..", "test-captures")
CLIENT_V4 = bytes([10, 77, 0, 2])
CLIENT_V6 = bytes.fromhex("fd770000000000000000000000000002")


def load_corpus():
    """[(records relative to the capture's start)] of each raw-IP capture."""
    captures = []
    for path in sorted(glob.glob(os.path.join(CORPUS, "*.pcap"))):
        linktype, records = pcapfile.read_pcap(path)
        if linktype != pcapfile.LINKTYPE_RAW or not records:
            continue
        t0 = records[0][0]
        captures.append([(t - t0, data, orig) for t, data, orig in records])
    return captures


def readdress(data, copy):
    """The client's address made unique to this copy (IPv4 10.x.y.2, IPv6
    fd77::x:y:2).  Checksums are not redone: Wireshark does not check them
    by default, nor does the batch analyser."""
    hi, lo = (copy // 250) % 250, copy % 250
    b = bytearray(data)
    if b[0] >> 4 == 4:
        for off in (12, 16):
            if bytes(b[off:off + 4]) == CLIENT_V4:
                b[off + 1], b[off + 2] = 100 + hi % 150, lo
    elif b[0] >> 4 == 6:
        for off in (8, 24):
            if bytes(b[off:off + 16]) == CLIENT_V6:
                b[off + 12], b[off + 13] = hi, lo
    return bytes(b)


def generate(out, packets, parallel, snaplen):
    corpus = load_corpus()
    per_round = sum(len(c) for c in corpus)
    rounds = -(-packets // per_round)
    # Each of the `parallel` lanes plays the corpus captures one after
    # another, each time as a new copy (a new client address); the lanes run
    # at once, merged by time.
    rounds_per_lane = -(-rounds // parallel)

    def lane(index):
        t = 1.0 + index * 0.001
        for r in range(rounds_per_lane):
            for k, cap in enumerate(corpus):
                copy = (r * parallel + index) * len(corpus) + k
                for rel, data, orig in cap:
                    yield (t + rel, copy, data, orig)
                t += cap[-1][0] + 1.0

    lanes = [lane(i) for i in range(parallel)]
    copy = rounds_per_lane * parallel * len(corpus)
    written = 0

    def merged():
        return heapq.merge(*lanes, key=lambda r: r[0])

    def records():
        nonlocal written
        for t, c, data, orig in merged():
            if written >= packets:
                return
            written += 1
            yield (1.8e9 + t, readdress(data, c)[:snaplen], orig)

    pcapfile.write_pcap(out, records(), pcapfile.LINKTYPE_RAW, snaplen=snaplen)
    os.chmod(out, 0o644)
    return written, copy


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("packets", type=int)
    ap.add_argument("--parallel", type=int, default=64, help="corpus copies playing at once")
    ap.add_argument("--snaplen", type=int, default=96)
    args = ap.parse_args()
    written, copies = generate(args.out, args.packets, args.parallel, args.snaplen)
    print("%s: %d packets from %d copies of the corpus captures" % (args.out, written, copies))


if __name__ == "__main__":
    main()
