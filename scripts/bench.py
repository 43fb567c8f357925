#!/usr/bin/env python3
"""Benchmarks, as ratios measured in one run on one machine (the tests never
assert timings).

    scripts/bench.py [--plugin] [--batch] [--memory] [--callgrind] [--original] [--html] [--packets N]
                     [--batch-packets N] [--html-packets N]

--plugin   what TAPO costs tshark (issue 13): installed (the C plugin and
           the Lua companion, as scripts/setup installs them) but unused,
           against no plugin at all, for a plain read, -z io,stat,0 and
           -z conv,tcp; used (-2 -Y tapo.stall, -z tapo,tree) against the
           nearest Wireshark-only command; and TAPO's own memory per
           connection (peak RSS with the plugin minus without it).
--batch    the batch analyser on one core and on every core against tshark
           with the plugin, on a capture of --batch-packets packets; and its
           memory on a capture ten times smaller with as many connections
           open at once (issue 11).
--memory   the plugin's memory on a capture ten times longer than
           --packets: per connection open at once and per stall (issue 10).
--callgrind  where the instructions go (valgrind --tool=callgrind counts
           them repeatably): tshark unused and used, with and without TAPO,
           on a capture of --callgrind-packets packets; the totals and the
           plugin's most expensive functions.
--original the batch analyser against the paper authors' original TAPO
           (../shared/peers/tapo-original, built with its build.sh; skipped
           with a note when that folder is absent) on the original's kind
           of capture: Ethernet, one server, --original-copies time-shifted
           copies of the lossy web run of the lab (test-captures/mixed-web),
           a few playing at once; packets per second, medians of
           --original-runs runs, and where tapo's time goes (callgrind).
--html     the HTML report (issue 22) of a capture of --html-packets
           packets: what writing it adds to tapo's run, its size, and how
           long headless Chromium takes to open it (the page's own time to
           every chart drawn, and the whole browser run against the report
           of a one-connection capture).

Captures are built from the labelled corpus (scripts/make_bench_capture.py):
real Linux TCP, each copy a new client, 64 copies playing at once.  Times
are the best of 3 runs (1 for runs over a minute); memory is the peak
resident size of the process.  Prints Markdown tables for docs/benchmarks.md.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import tshark_runner as ts  # noqa: E402

PARALLEL = 64
ORIGINAL_DIR = os.path.join(HERE, "..", "..", "shared", "peers", "tapo-original")
WEB_SERVER = ("10.77.0.1", "8080")   # test-captures/mixed-web.pcap's server


def make_capture(tmp, packets):
    path = os.path.join(tmp, "bench-%d.pcap" % packets)
    if not os.path.exists(path):
        subprocess.run([sys.executable, os.path.join(HERE, "make_bench_capture.py"), path, str(packets),
                        "--parallel", str(PARALLEL)], check=True, stdout=subprocess.DEVNULL)
    return path


def measure(argv, repeats=3):
    """Best wall time (s) and peak RSS (MB) of up to `repeats` runs."""
    best, rss = None, 0.0
    for i in range(repeats):
        start = time.monotonic()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.monotonic() - start
        if status != 0:
            sys.exit("failed: %s" % " ".join(argv))
        best = elapsed if best is None else min(best, elapsed)
        rss = max(rss, usage.ru_maxrss / 1024.0)
        if elapsed > 60:
            break
    return best, rss


def tshark(args, capture, plugins):
    return ts.command(args + ["-r", capture], plugins)


def no_plugins(tmp):
    empty = os.path.join(tmp, "no-plugins")
    os.makedirs(empty, exist_ok=True)
    os.chmod(empty, 0o755)
    return empty


def connections_of(capture):
    out = subprocess.run([os.path.join(ts.BUILD, "tapo"), "-q", "--report", "json", capture],
                         capture_output=True, text=True, check=True).stdout
    import json
    report = json.loads(out)
    stalls = next(n["total"] for n in report["breakdown"]["children"] if n["name"] == "Stalls")
    return report["conversations"], stalls, report["packets"]


def plugin_section(tmp, packets):
    capture = make_capture(tmp, packets)
    conns, stalls, n = connections_of(capture)
    installed, empty = ts.installed_plugin_dir(), no_plugins(tmp)
    print("\n### What TAPO costs tshark (%d packets, %d connections, %d stalls)\n" % (n, conns, stalls))
    print("| command | without TAPO (s) | with TAPO installed (s) | ratio | peak RSS without / with (MB) |")
    print("|---|---|---|---|---|")
    unused = [("plain read: tshark -r", []), ("-q -z io,stat,0", ["-q", "-z", "io,stat,0"]),
              ("-q -z conv,tcp", ["-q", "-z", "conv,tcp"])]
    for name, args in unused:
        t0, m0 = measure(tshark(args, capture, empty))
        t1, m1 = measure(tshark(args, capture, installed))
        print("| unused: %s | %.2f | %.2f | %.2f | %.0f / %.0f |" % (name, t0, t1, t1 / t0, m0, m1))
    print("\n| TAPO used | its time (s) | nearest Wireshark-only command | its time (s) | ratio | TAPO's memory |")
    print("|---|---|---|---|---|---|")
    used = [("-2 -Y tapo.stall", ["-2", "-Y", "tapo.stall"], "-2 -Y tcp.analysis.retransmission",
             ["-2", "-Y", "tcp.analysis.retransmission"]),
            ("-2 -q -z tapo,tree", ["-2", "-q", "-z", "tapo,tree"], "-2 -q -z conv,tcp",
             ["-2", "-q", "-z", "conv,tcp"])]
    for name, args, base_name, base_args in used:
        t1, m1 = measure(tshark(args, capture, installed))
        t0, m0 = measure(tshark(base_args, capture, empty))
        extra = max(0.0, m1 - m0) * 1024 * 1024   # the two runs hold the same Wireshark state
        print("| %s | %.2f | %s | %.2f | %.2f | %.0f bytes per connection |" % (
            name, t1, base_name, t0, t1 / t0, extra / conns))


def batch_section(tmp, packets):
    big = make_capture(tmp, packets)
    small = make_capture(tmp, packets // 10)
    conns, stalls, n = connections_of(big)
    tapo = os.path.join(ts.BUILD, "tapo")
    cores = os.cpu_count() or 1
    print("\n### The batch analyser (%d packets, %d connections, %d stalls, %d cores)\n" % (n, conns, stalls, cores))
    print("| run | time (s) | packets per second | per core | peak RSS (MB) |")
    print("|---|---|---|---|---|")
    for name, argv, used_cores in (
            ("tapo -j 1 (one core)", [tapo, "-q", "-j", "1", "--report", "json", big], 1),
            ("tapo -j %d (every core)" % cores, [tapo, "-q", "-j", str(cores), "--report", "json", big], cores),
            ("tshark -q -z tapo,tree (the plugin, one pass)", ts.command(["-q", "-z", "tapo,tree", "-r", big]), 1)):
        t, m = measure(argv)
        print("| %s | %.2f | %.0f | %.0f | %.0f |" % (name, t, n / t, n / t / used_cores, m))
    # A connection stays in memory until it is over and a grace period has
    # passed, or until it was idle for the idle timeout (an hour by default:
    # the corpus has connections that never close cleanly).  Memory is flat
    # once a capture is longer than both; with the defaults the small
    # capture (minutes) is shorter than that.
    print("\nMemory with the same connections open at once (peak RSS, MB):\n")
    print("| options | %d packets | %d packets | ratio |" % (n // 10, n))
    print("|---|---|---|---|")
    for name, opts in (("defaults (--grace 240 --idle-timeout 3600)", []),
                       ("--grace 30 --idle-timeout 60", ["--grace", "30", "--idle-timeout", "60"])):
        _, m_small = measure([tapo, "-q", "-j", "1", "--report", "json"] + opts + [small])
        _, m_big = measure([tapo, "-q", "-j", "1", "--report", "json"] + opts + [big])
        print("| %s | %.0f | %.0f | %.2f |" % (name, m_small, m_big, m_big / m_small))


def memory_section(tmp, packets):
    capture = make_capture(tmp, packets * 10)
    conns, stalls, n = connections_of(capture)
    installed, empty = ts.installed_plugin_dir(), no_plugins(tmp)
    args = ["-q", "-z", "tapo,tree"]
    _, with_tapo = measure(tshark(args, capture, installed), repeats=1)
    _, without = measure(tshark(["-q", "-z", "io,stat,0"], capture, empty), repeats=1)
    extra = (with_tapo - without) * 1024 * 1024
    print("\n### The plugin's memory on %d packets (%d connections, %d stalls, about %d open at once)\n" % (
        n, conns, stalls, PARALLEL))
    print("| peak RSS without TAPO (MB) | with TAPO (MB) | TAPO's share | per connection of the capture | per stall |")
    print("|---|---|---|---|---|")
    print("| %.0f | %.0f | %.0f MB | %.0f bytes | %.0f bytes |" % (without, with_tapo, extra / 2**20,
                                                               extra / conns, extra / max(stalls, 1)))


def callgrind(argv, tmp, name):
    """Instructions executed by argv (tshark), and callgrind's output file."""
    out = os.path.join(tmp, "callgrind.%s.out" % name)
    os.chmod(tmp, 0o777)
    prefix = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out]
    # runuser ... env ... tshark: valgrind goes right before tshark.
    i = argv.index("tshark")
    proc = subprocess.run(argv[:i] + prefix + argv[i:], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit("callgrind failed: %s" % proc.stderr[-2000:])
    def annotate(*opts):
        return subprocess.run(["callgrind_annotate", "--threshold=100"] + list(opts) + [out],
                              capture_output=True, text=True, check=True).stdout
    inclusive = annotate("--inclusive=yes")
    total = next(int(l.split()[0].replace(",", "")) for l in inclusive.splitlines() if "PROGRAM TOTALS" in l)
    own = sum(tapo_costs(annotate(), sum).values())
    return total, own, inclusive


def tapo_costs(annotate, combine):
    """{function: instructions} of the plugin's functions in callgrind_annotate's
    output ("  6,120,017 ( 0.59%)  file:function [object]"); a function may
    show twice (with and without its file, or inlined parts): combine them."""
    costs = {}
    for line in annotate.splitlines():
        m = re.match(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S*?):(\S+) \[(.*)\]$", line)
        if m and m.group(4).endswith("/tapo.so"):
            ir = int(m.group(1).replace(",", ""))
            costs[m.group(3)] = combine((ir, costs.get(m.group(3), 0)))
    return costs


def tapo_lines(annotate, total, limit=6):
    """The plugin's most expensive functions, inclusive, as a share of the run."""
    rows = sorted(((ir, f) for f, ir in tapo_costs(annotate, max).items()), reverse=True)
    return ["| %s | %s | %.2f %% |" % (f, "{:,}".format(ir), 100.0 * ir / total) for ir, f in rows[:limit]]


def callgrind_section(tmp, packets):
    capture = make_capture(tmp, packets)
    installed, empty = ts.installed_plugin_dir(), no_plugins(tmp)
    print("\n### Instructions (callgrind, %d packets)\n" % packets)
    print("| command | without TAPO | with TAPO installed | ratio | TAPO's own code (self) |")
    print("|---|---|---|---|---|")
    profiles = {}
    for name, args, base in (("unused: -q -z io,stat,0", ["-q", "-z", "io,stat,0"], ["-q", "-z", "io,stat,0"]),
                             ("used: -2 -Y tapo.stall against -2 -Y tcp.analysis.retransmission",
                              ["-2", "-Y", "tapo.stall"], ["-2", "-Y", "tcp.analysis.retransmission"])):
        t0, _, _ = callgrind(tshark(base, capture, empty), tmp, "base")
        t1, own, annotate = callgrind(tshark(args, capture, installed), tmp, "tapo")
        profiles[name] = (t1, annotate)
        print("| %s | %s | %s | %.3f | %s (%.2f %%) |" % (name, "{:,}".format(t0), "{:,}".format(t1), t1 / t0,
                                                      "{:,}".format(own), 100.0 * own / t1))
    for name, (total, annotate) in profiles.items():
        print("\nTAPO's functions, %s (inclusive instructions):\n" % name)
        print("| function | instructions | share of the run |")
        print("|---|---|---|")
        lines = tapo_lines(annotate, total)
        print("\n".join(lines) if lines else "| (none: TAPO returned at once) | | |")


def make_web_capture(tmp, copies):
    """copies of mixed-web.pcap, each with a new client address, starting a
    quarter of its length apart, as Ethernet (the original reads Ethernet
    and Linux cooked captures only)."""
    import heapq
    import pcapfile
    path = os.path.join(tmp, "web-%d.pcap" % copies)
    _, records = pcapfile.read_pcap(os.path.join(HERE, "..", "test-captures", "mixed-web.pcap"))
    t0, span = records[0][0], records[-1][0] - records[0][0]
    ethernet = bytes(6) + bytes([2, 0, 0, 0, 0, 1]) + b"\x08\x00"
    client = bytes([10, 77, 0, 2])

    def copy(c):
        start = 1.8e9 + c * (span + 1.0) / 4
        for t, data, orig in records:
            b = bytearray(data)
            for off in (12, 16):
                if b[off:off + 4] == client:
                    b[off + 1], b[off + 2] = 100 + (c // 250) % 150, c % 250
            yield start + t - t0, ethernet + bytes(b), orig + len(ethernet)

    merged = heapq.merge(*(copy(c) for c in range(copies)), key=lambda r: r[0])
    pcapfile.write_pcap(path, merged, pcapfile.LINKTYPE_ETHERNET)
    os.chmod(path, 0o644)
    return path, copies * len(records)


def median_time(argv, runs):
    times = sorted(measure(argv, repeats=1)[0] for _ in range(runs))
    return times[len(times) // 2]


def original_section(tmp, copies, runs):
    build = os.path.join(ORIGINAL_DIR, "build.sh")
    if not os.path.exists(build):
        print("\n(the original TAPO is not beside this checkout, %s: its comparison is skipped)" % ORIGINAL_DIR)
        return
    proc = subprocess.run([build, os.path.join(tmp, "original")], capture_output=True, text=True)
    if proc.returncode != 0:
        print("\n(the original TAPO did not build: %s)" % proc.stderr.strip()[-300:])
        return
    original = proc.stdout.strip().splitlines()[-1]
    capture, packets = make_web_capture(tmp, copies)
    tapo = os.path.join(ts.BUILD, "tapo")
    cores = os.cpu_count() or 1
    runs_of = [("the original TAPO (-O2)", ["sh", "-c", 'exec "$0" -f "$1" -s "$2" -p "$3" > /dev/null',
                                            original, capture, WEB_SERVER[0], WEB_SERVER[1]]),
               ("tapo -j 1", [tapo, "-q", "-j", "1", "--report", "json", capture]),
               ("tapo -j %d" % cores, [tapo, "-q", "-j", str(cores), "--report", "json", capture])]
    print("\n### The batch analyser against the original TAPO (%d packets, %d connections, medians of %d)\n"
          % (packets, copies * 12, runs))
    print("| program | packets per second | against the original |")
    print("|---|---|---|")
    base = None
    for name, argv in runs_of:
        t = median_time(argv, runs)
        base = base or t
        print("| %s | %.2f M | %.2f |" % (name, packets / t / 1e6, base / t))
    # Where the instructions go, per packet (callgrind on a tenth): the
    # totals, and tapo's own by source file (inlined code is counted where
    # it was written).
    small, small_packets = make_web_capture(tmp, max(copies // 10, 1))
    root = os.path.realpath(os.path.join(HERE, ".."))
    totals, files = {}, {}
    for name, argv in (("original", [original, "-f", small, "-s", WEB_SERVER[0], "-p", WEB_SERVER[1]]),
                       ("tapo", [tapo, "-q", "-j", "1", "--report", "json", small])):
        out = os.path.join(tmp, "callgrind.%s.out" % name)
        subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] + argv,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        # (From a folder outside the checkout: callgrind_annotate shortens
        # the paths under its own folder.)
        listing = subprocess.run(["callgrind_annotate", "--threshold=100", out], capture_output=True,
                                 text=True, check=True, cwd=tmp).stdout
        for line in listing.splitlines():
            m = re.match(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+PROGRAM TOTALS", line)
            if m:
                totals[name] = int(m.group(1).replace(",", ""))
            m = re.match(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S+?):(\S+)", line)
            if not m:
                continue
            ir = int(m.group(1).replace(",", ""))
            if name == "tapo" and m.group(2).startswith(root + os.sep):
                key = os.path.relpath(m.group(2), root)
                files[key] = files.get(key, 0) + ir
    print("\nInstructions per packet (callgrind, %d packets, start-up included): the original %.0f, tapo %.0f."
          % (small_packets, totals.get("original", 0) / small_packets, totals.get("tapo", 0) / small_packets))
    print("\ntapo's own code by source file (self, inlined code where it was written):\n")
    print("| file | instructions per packet |")
    print("|---|---|")
    for key, ir in sorted(files.items(), key=lambda kv: -kv[1])[:14]:
        print("| %s | %.0f |" % (key, ir / small_packets))


def html_section(tmp, packets):
    big = make_capture(tmp, packets)
    conns, stalls, n = connections_of(big)
    tapo = os.path.join(ts.BUILD, "tapo")
    report, small = os.path.join(tmp, "report.html"), os.path.join(tmp, "small.html")
    print("\n### The HTML report (%d packets, %d connections, %d stalls)\n" % (n, conns, stalls))
    t_plain, _ = measure([tapo, "-q", "-j", "1", "--report", "json", big])
    t_html, rss = measure([tapo, "-q", "-j", "1", "--report", "json", "--html", report, big])
    subprocess.run([tapo, "-q", "--html", small, os.path.join(HERE, "..", "test-captures", "f-double.pcap")],
                   check=True, stdout=subprocess.DEVNULL)
    chromium = shutil.which("chromium")

    def open_page(path):
        """Median wall time (s) of a headless Chromium run over the page,
        and the page's own milliseconds to every chart drawn."""
        walls, render = [], []
        for _ in range(5):
            start = time.monotonic()
            dom = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                                  "file://" + path], capture_output=True, text=True, check=True).stdout
            walls.append(time.monotonic() - start)
            m = re.search(r'data-render-ms="(\d+)"', dom)
            render.append(int(m.group(1)) if m else float("nan"))
        return sorted(walls)[2], sorted(render)[2]

    print("| | tapo -j 1 (s) | report size | peak RSS (MB) | Chromium run (s) | page drawn after (ms) |")
    print("|---|---|---|---|---|---|")
    print("| --report json | %.2f | | | | |" % t_plain)
    wall, drawn = open_page(report) if chromium else (float("nan"), float("nan"))
    print("| --report json --html | %.2f (x%.2f) | %.0f kB | %.0f | %.2f | %s |" % (
        t_html, t_html / t_plain, os.path.getsize(report) / 1024.0, rss, wall, drawn))
    wall_s, drawn_s = open_page(small) if chromium else (float("nan"), float("nan"))
    print("| one connection (f-double.pcap) --html | | %.0f kB | | %.2f | %s |" % (
        os.path.getsize(small) / 1024.0, wall_s, drawn_s))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plugin", action="store_true")
    ap.add_argument("--batch", action="store_true")
    ap.add_argument("--memory", action="store_true")
    ap.add_argument("--packets", type=int, default=550000)
    ap.add_argument("--batch-packets", type=int, default=5000000)
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--callgrind-packets", type=int, default=30000)
    ap.add_argument("--original", action="store_true")
    ap.add_argument("--original-copies", type=int, default=600)
    ap.add_argument("--original-runs", type=int, default=7)
    ap.add_argument("--html", action="store_true")
    ap.add_argument("--html-packets", type=int, default=500000)
    args = ap.parse_args()
    if not (args.plugin or args.batch or args.memory or args.callgrind or args.original or args.html):
        args.plugin = args.batch = args.memory = args.callgrind = args.original = args.html = True
    tmp = tempfile.mkdtemp(prefix="tapo-bench-")
    os.chmod(tmp, 0o755)
    try:
        if args.plugin:
            plugin_section(tmp, args.packets)
        if args.batch:
            batch_section(tmp, args.batch_packets)
        if args.memory:
            memory_section(tmp, args.packets)
        if args.callgrind:
            callgrind_section(tmp, args.callgrind_packets)
        if args.original:
            original_section(tmp, args.original_copies, args.original_runs)
        if args.html:
            html_section(tmp, args.html_packets)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
