#!/usr/bin/env python3
"""Writes each TCP connection of captures as a fuzzer input
(packet_stream.h), to seed the fuzz target with real conversations.

    pcap_to_stream.py OUT_DIR CAPTURE...

Reads the fields Wireshark's TCP dissector parsed (tshark -T fields), as the
plugin does; one file per connection, named CAPTURE-STREAM.
"""

import os
import struct
import subprocess
import sys

FIELDS = ["tcp.stream", "frame.time_epoch", "ip.src", "ipv6.src", "tcp.srcport", "tcp.flags",
          "tcp.seq_raw", "tcp.ack_raw", "tcp.ack", "tcp.len", "tcp.window_size",
          "tcp.window_size_scalefactor", "tcp.options.mss_val", "tcp.options.sack_le",
          "tcp.options.sack_re", "ip.id", "tcp.options.timestamp.tsval",
          "tcp.options.timestamp.tsecr", "tcp.analysis.keep_alive", "tcp.analysis.zero_window_probe"]
HEADER = bytes([0, 0, 10, 0])   # automatic sender and vantage, tau 2, 10 ms, 4 segments


def first(value, default=0, base=10):
    value = value.split(",")[0]
    return int(value, base) if value else default


def rows(capture):
    cmd = ["tshark", "-n", "-r", capture, "-Y", "tcp.stream", "-T", "fields", "-E", "occurrence=a",
           "-E", "aggregator=,"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        r = dict(zip(FIELDS, line.split("\t")))
        if r.get("tcp.seq_raw"):
            yield r


def encode(r, endpoint, last_time):
    t = float(r["frame.time_epoch"])
    delta = t - last_time if last_time is not None else 0.0
    has_ts = bool(r["tcp.options.timestamp.tsval"])
    meta = endpoint | (4 if has_ts else 0) | (8 if r["tcp.analysis.keep_alive"] else 0)
    meta |= 0x10 if r["tcp.analysis.zero_window_probe"] else 0
    meta |= 0x20 if first(r["tcp.window_size_scalefactor"], -1) != -1 else 0
    meta |= 0x40 if delta < 0 else 0
    out = struct.pack("<BBIIIHIH", meta, first(r["tcp.flags"], 0, 16) & 0xff,
                      min(int(abs(delta) * 1e6), 2**32 - 1), first(r["tcp.seq_raw"]),
                      first(r["tcp.ack_raw"]), first(r["tcp.len"]) & 0xffff,
                      first(r["tcp.window_size"]) & 0xffffffff, first(r["tcp.options.mss_val"]) & 0xffff)
    lefts = [int(x) for x in r["tcp.options.sack_le"].split(",") if x][:4]
    rights = [int(x) for x in r["tcp.options.sack_re"].split(",") if x][:4]
    base = (first(r["tcp.ack_raw"]) - first(r["tcp.ack"])) % 2**32   # SACK edges are relative
    out += bytes([min(len(lefts), len(rights))])
    for left, right in zip(lefts, rights):
        out += struct.pack("<II", (left + base) % 2**32, (right + base) % 2**32)
    out += struct.pack("<H", first(r["ip.id"], 0, 16) & 0xffff)
    if has_ts:
        out += struct.pack("<II", first(r["tcp.options.timestamp.tsval"]),
                           first(r["tcp.options.timestamp.tsecr"]))
    return out, t


def main(out_dir, captures):
    os.makedirs(out_dir, exist_ok=True)
    written = 0
    for capture in captures:
        streams = {}
        for r in rows(capture):
            s = streams.setdefault(r["tcp.stream"], {"data": bytearray(HEADER), "first": None, "t": None})
            source = (r["ip.src"] or r["ipv6.src"], r["tcp.srcport"])
            if s["first"] is None:
                s["first"] = source
            data, s["t"] = encode(r, 0 if source == s["first"] else 1, s["t"])
            s["data"] += data
        name = os.path.splitext(os.path.basename(capture))[0]
        for stream, s in streams.items():
            with open(os.path.join(out_dir, "%s-%s" % (name, stream)), "wb") as f:
                f.write(s["data"])
            written += 1
    print("%d conversations written to %s" % (written, out_dir))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
