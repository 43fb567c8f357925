#!/usr/bin/env python3
"""Benchmark: what TAPO costs tshark, as ratios measured in one run.

    scripts/bench.py [COPIES]        (default 40)

Builds a long capture by appending COPIES copies of the labelled corpus
(shifted in time, so each copy's connections follow the previous ones),
then runs the same tshark command without any plugin, with TAPO, with
TAPO in two passes, and with TAPO and the Lua companion.  Each run is
repeated 3 times; the best time and the peak memory (max RSS) are kept and
reported as ratios to the run without plugin.  A second, 4 times shorter
capture shows how memory grows with the number of flows.  Timings are
never asserted by the tests: they depend on the machine.
"""

import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import tshark_runner as ts  # noqa: E402

REPEATS = 3


def build_capture(directory, copies):
    corpus = sorted(glob.glob(os.path.join(ts.ROOT, "test-captures", "*.pcap")))
    one = os.path.join(directory, "corpus-once.pcap")
    subprocess.run(["mergecap", "-a", "-F", "pcap", "-w", one] + corpus, check=True)
    parts, offset = [], 0.0
    for i in range(copies):
        part = os.path.join(directory, "copy-%03d.pcap" % i)
        subprocess.run(["editcap", "-t", "%.1f" % offset, one, part], check=True)
        parts.append(part)
        offset += 60.0
    out = os.path.join(directory, "long-%d.pcap" % copies)
    subprocess.run(["mergecap", "-a", "-F", "pcap", "-w", out] + parts, check=True)
    for p in parts:
        os.remove(p)
    os.chmod(out, 0o644)
    return out


def measure(argv):
    """Best wall time (s) and peak RSS (MB) of REPEATS runs."""
    best, rss = None, 0
    for _ in range(REPEATS):
        start = time.monotonic()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.monotonic() - start
        if status != 0:
            sys.exit("failed: %s" % " ".join(argv))
        best = elapsed if best is None else min(best, elapsed)
        rss = max(rss, usage.ru_maxrss / 1024.0)
    return best, rss


def main():
    copies = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    tmp = tempfile.mkdtemp(prefix="tapo-bench-")
    os.chmod(tmp, 0o755)
    try:
        empty = os.path.join(tmp, "no-plugins")
        os.makedirs(empty)
        small = build_capture(tmp, max(1, copies // 4))
        big = build_capture(tmp, copies)
        packets = subprocess.run(["capinfos", "-c", "-M", big], capture_output=True, text=True).stdout
        print(packets.strip().splitlines()[-1].strip())
        lua = ts.lua_script()
        runs = [
            ("no plugin", ["-q", "-z", "io,stat,0"], empty),
            ("TAPO", ["-q", "-z", "io,stat,0"], None),
            ("TAPO, two passes", ["-2", "-q", "-z", "io,stat,0"], None),
            ("TAPO + Lua companion", ["-q", "-z", "io,stat,0", "-X", "lua_script:" + lua,
                                      "-X", "lua_script1:format=none"], None),
            ("TAPO statistics (-z tapo,tree)", ["-2", "-q", "-z", "tapo,tree"], None),
        ]
        print("\n| run | capture | time (s) | time ratio | max RSS (MB) | RSS ratio |")
        print("|---|---|---|---|---|---|")
        for capture, label in ((small, "%d copies" % max(1, copies // 4)), (big, "%d copies" % copies)):
            base = None
            for name, args, plugins in runs:
                argv = ts.command(args + ["-r", capture], plugins)
                t, rss = measure(argv)
                base = base or (t, rss)
                print("| %s | %s | %.2f | %.2f | %.0f | %.2f |" % (name, label, t, t / base[0], rss, rss / base[1]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
