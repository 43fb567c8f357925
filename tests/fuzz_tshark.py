#!/usr/bin/env python3
"""Fuzzing through tshark, the way Wireshark's own fuzz test does it:
mutated copies of the labelled corpus and of the captures written by
others, read in one pass and in two passes by tshark with the plugin built
under AddressSanitizer and UBSan (tests/sanitized.py).

    tests/fuzz_tshark.py [--runs N] [--seed S] [--keep DIR]

Mutations, one per run, chosen by the seed: random byte errors
(`editcap -E` at 0.5 %, 2 % and 5 %), a random snaplen cut (`editcap -s`),
packets shuffled within a window, packets repeated, timestamps going
backwards or jumping years forward.  Every run reports ok, a fault of the
plugin (a sanitizer report or crash whose stack passes through TAPO), or a
fault of Wireshark's own (confirmed by the same input crashing without
TAPO).  Inputs that fail are kept in --keep.  Exit status 1 when the
plugin faulted.
"""

import argparse
import glob
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pcapfile  # noqa: E402
import sanitized  # noqa: E402
import tshark_runner as ts  # noqa: E402

REAL = ts.REAL_CAPTURES
ERROR_RATES = (0.005, 0.02, 0.05)
YEAR_S = 365 * 86400.0


def inputs():
    found = sorted(glob.glob(os.path.join(ts.ROOT, "test-captures", "*.pcap")))
    found += sorted(glob.glob(os.path.join(ts.ROOT, "test-captures", "vantage", "*.pcap")))
    if os.path.isdir(REAL):
        found += sorted(p for p in glob.glob(os.path.join(REAL, "*")) if not p.endswith((".md", ".tsv")))
    return found


def editcap(args, src, dst):
    subprocess.run(["editcap"] + args + [src, dst], check=True, capture_output=True)


def shuffle(records, rng):
    out = list(records)
    window = rng.randint(2, 8)
    for i in range(0, len(out), window):
        chunk = out[i:i + window]
        rng.shuffle(chunk)
        out[i:i + window] = chunk
    return out


def repeat(records, rng):
    out = []
    for rec in records:
        out.append(rec)
        if rng.random() < 0.1:
            out.extend([rec] * rng.randint(1, 3))
    return out


def time_warp(records, rng):
    out = []
    for t, data, orig in records:
        r = rng.random()
        if r < 0.05:
            t -= rng.uniform(0.001, 100.0)          # backwards
        elif r < 0.07:
            t += rng.uniform(1, 30) * YEAR_S        # years forward
        out.append((max(t, 0.0), data, orig))
    return out


MUTATIONS = ("errors", "snaplen", "shuffle", "repeat", "time")


def mutate(src, dst, kind, rng):
    if kind == "errors":
        editcap(["-E", str(rng.choice(ERROR_RATES)), "--seed", str(rng.randrange(2**31))], src, dst)
    elif kind == "snaplen":
        editcap(["-s", str(rng.randint(20, 200))], src, dst)
    else:
        linktype, records = pcapfile.read_pcap(src)
        records = {"shuffle": shuffle, "repeat": repeat, "time": time_warp}[kind](records, rng)
        pcapfile.write_pcap(dst, records, linktype)
    os.chmod(dst, 0o644)


def without_tapo_crashes(path, two_pass):
    """Whether Wireshark alone fails the same way (no plugin at all)."""
    empty = tempfile.mkdtemp(prefix="tapo-noplugin-", dir=ts.config_dir())
    os.chmod(empty, 0o755)
    proc = subprocess.run(ts.command(two_pass + ["-r", path, "-V"], plugin_dir_override=empty),
                          capture_output=True, text=True)
    shutil.rmtree(empty, ignore_errors=True)
    return proc.returncode < 0 or proc.returncode > 128


def fuzz(runs, seed, keep=None, verbose=True):
    """Returns {'runs', 'tshark_runs', 'plugin', 'wireshark', 'reports'}."""
    if not sanitized.available():
        raise RuntimeError("no sanitized plugin build at %s" % sanitized.SANITIZE_BUILD)
    rng = random.Random(seed)
    sources = inputs()
    work = tempfile.mkdtemp(prefix="tapo-fuzz-", dir=ts.config_dir())
    os.chmod(work, 0o755)
    totals = {"runs": 0, "tshark_runs": 0, "plugin": 0, "wireshark": 0, "reports": 0}
    try:
        for i in range(runs):
            src, kind = rng.choice(sources), rng.choice(MUTATIONS)
            dst = os.path.join(work, "fuzz-%05d.pcap" % i)
            try:
                mutate(src, dst, kind, rng)
            except subprocess.CalledProcessError:
                continue   # editcap refused the source format for this mutation
            totals["runs"] += 1
            for two_pass in ([], ["-2"]):
                proc = sanitized.run(two_pass + ["-r", dst, "-Y", "tapo.stall", "-T", "fields",
                                                 "-e", "frame.number", "-e", "tapo.stall.cause"])
                totals["tshark_runs"] += 1
                who = sanitized.verdict(proc)
                if who == "ok":
                    continue
                totals["reports"] += sanitized.REPORT.search(proc.stderr) is not None
                if who == "wireshark" and not without_tapo_crashes(dst, two_pass):
                    who = "plugin"   # only with TAPO loaded
                totals[who] += 1
                if verbose:
                    print("%s fault: run %d (%s of %s, %s): exit %d\n%s" % (
                        who, i, kind, os.path.basename(src), "two passes" if two_pass else "one pass",
                        proc.returncode, proc.stderr[-3000:]))
                if keep:
                    os.makedirs(keep, exist_ok=True)
                    shutil.copy(dst, os.path.join(keep, "%s-%05d-%s.pcap" % (who, i, kind)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if verbose:
        print("tshark fuzzing, seed %d: %d mutated captures, %d tshark runs, %d sanitizer reports, "
              "%d plugin faults, %d Wireshark faults" % (seed, totals["runs"], totals["tshark_runs"],
                                                        totals["reports"], totals["plugin"],
                                                        totals["wireshark"]))
    return totals


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", default=None, help="folder for inputs that failed")
    args = ap.parse_args()
    totals = fuzz(args.runs, args.seed, args.keep)
    return 1 if totals["plugin"] else 0


if __name__ == "__main__":
    sys.exit(main())
