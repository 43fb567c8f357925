#!/usr/bin/env python3
"""The batch analyser against the plugin: both read the same captures, and
must find the same stalls with the same fields, frame for frame.

    tests/batch_compare.py CAPTURE...      (prints the differences)

The plugin runs as tshark -2 (its two-pass verdicts); the batch analyser's
verdicts are final by construction.  Durations and times compare to the
nanosecond printed, other values exactly.
"""

import csv
import io
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tshark_runner as ts  # noqa: E402

FIELDS = ["tapo.stall.cause", "tapo.stall.category", "tapo.stall.retransmission", "tapo.stall.duration",
          "tapo.stall.threshold", "tapo.stall.srtt", "tapo.stall.rto", "tapo.stall.prev_frame",
          "tapo.stall.ca_state", "tapo.stall.in_flight", "tapo.stall.packets_out", "tapo.stall.sacked_out",
          "tapo.stall.lost_out", "tapo.stall.retrans_out", "tapo.stall.rwnd", "tapo.stall.mss",
          "tapo.stall.retrans_count", "tapo.stall.first_retrans", "tapo.stall.spurious",
          "tapo.stall.position", "tapo.vantage", "tapo.sender", "tapo.sender.port", "tapo.stall.inferred",
          "tapo.stall.rule", "tapo.stall.orig_frame", "tapo.stall.prev_retrans_frame",
          "tapo.stall.loss_signal_frame", "tapo.stall.dsack_frame", "tapo.stall.window_frame",
          "tapo.stall.window_update_frame"]
SECONDS = {"tapo.stall.duration", "tapo.stall.threshold", "tapo.stall.srtt", "tapo.stall.rto"}
TOLERANCE_S = 2e-9


def batch_binary():
    return os.path.join(ts.BUILD, "tapo")


def tapo(*args, check=True):
    """Runs the build tree's tapo; with check, a failure is an assertion."""
    proc = subprocess.run([batch_binary()] + list(args), capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError("tapo %s: %d\n%s" % (" ".join(args), proc.returncode, proc.stderr))
    return proc


def normalise(field, value):
    if value in ("True", "False"):
        value = "1" if value == "True" else "0"
    if field == "tapo.stall.position" and value:
        return "%.5f" % float(value)
    return value


def plugin_stalls(pcap):
    rows = ts.stall_fields(pcap, ["frame.number"] + FIELDS)
    return {int(r[0]): dict(zip(FIELDS, (normalise(f, v) for f, v in zip(FIELDS, r[1:])))) for r in rows}


def batch_stalls(pcap, extra=()):
    proc = subprocess.run([batch_binary(), "-q", "-j", "2"] + list(extra) + [pcap], capture_output=True, text=True)
    if proc.returncode not in (0, 2):
        raise RuntimeError("tapo %s failed (%d): %s" % (pcap, proc.returncode, proc.stderr))
    stalls = {}
    for r in csv.DictReader(io.StringIO(proc.stdout)):
        stalls[int(r["frame.number"])] = {f: normalise(f, r[f]) for f in FIELDS}
    return stalls


def differences(pcap, extra=()):
    """Human-readable differences between the plugin and the batch analyser
    (extra: options of the batch analyser)."""
    plugin, batch = plugin_stalls(pcap), batch_stalls(pcap, extra)
    out = []
    for frame in sorted(set(plugin) | set(batch)):
        if frame not in batch:
            out.append("frame %d: the plugin says %s, the batch analyser no stall" % (frame, plugin[frame]["tapo.stall.cause"]))
            continue
        if frame not in plugin:
            out.append("frame %d: the batch analyser says %s, the plugin no stall" % (frame, batch[frame]["tapo.stall.cause"]))
            continue
        for f in FIELDS:
            a, b = plugin[frame][f], batch[frame][f]
            if f in SECONDS and a and b:
                same = abs(float(a) - float(b)) <= TOLERANCE_S
            else:
                same = a == b
            if not same:
                out.append("frame %d: %s: plugin %r, batch %r" % (frame, f, a, b))
    return out, len(plugin)


if __name__ == "__main__":
    status = 0
    for path in sys.argv[1:]:
        diffs, n = differences(path)
        print("%s: %d stalls, %d differences" % (path, n, len(diffs)))
        for d in diffs[:20]:
            print("  " + d)
        status |= bool(diffs)
    sys.exit(status)
