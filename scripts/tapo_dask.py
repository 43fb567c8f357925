#!/usr/bin/env python3
"""Runs the batch analyser over many captures on a Dask cluster and merges
the results exactly.

    scripts/tapo_dask.py --local 4 [OPTIONS] CAPTURE...
    scripts/tapo_dask.py --scheduler tcp://scheduler:8786 [OPTIONS] CAPTURE...

Each capture is one task: `tapo --partial` on whichever worker Dask picks
(the tapo binary and the captures must be reachable at the same paths on
every worker: a shared file system).  The partial results come back to this
process, and `tapo merge` adds them up: counts and times add, quantile
sketches add their buckets, so the totals equal one run over all the
captures.  Stall rows, if asked for, are written per capture into
--stalls-dir by the workers.

Options:
  --local N            start a local cluster of N worker processes
  --scheduler ADDRESS  use a running cluster
  --tapo PATH          the tapo binary (default: tapo on PATH)
  --report text|json   print the merged report (default text)
  --partial FILE       also write the merged partial result
  --stalls-dir DIR     stall rows, one CSV per capture
  -o tapo.NAME:VALUE   a preference for every run
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile


def analyse(tapo, capture, prefs, stalls_dir):
    """One task: the capture's partial result as JSON text, and its stderr."""
    with tempfile.TemporaryDirectory(prefix="tapo-part-") as tmp:
        partial = os.path.join(tmp, "partial.json")
        cmd = [tapo, "-q", "-j", "1", "--partial", partial]
        for p in prefs:
            cmd += ["-o", p]
        if stalls_dir:
            name = os.path.basename(capture)
            cmd += ["--stalls", os.path.join(stalls_dir, name + ".csv")]
        cmd.append(capture)
        proc = subprocess.run(cmd, capture_output=True, text=True)
        text = open(partial).read() if os.path.exists(partial) else None
        return capture, proc.returncode, text, proc.stderr


def run(args):
    from dask.distributed import Client, LocalCluster

    tapo = args.tapo or shutil.which("tapo")
    if not tapo:
        sys.exit("tapo_dask: no tapo binary (--tapo PATH)")
    tapo = os.path.abspath(tapo)
    captures = [os.path.abspath(c) for c in args.captures]
    stalls_dir = os.path.abspath(args.stalls_dir) if args.stalls_dir else None
    if stalls_dir:
        os.makedirs(stalls_dir, exist_ok=True)
    cluster = None
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.local, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    status = 0
    try:
        futures = client.map(analyse, [tapo] * len(captures), captures, [args.pref] * len(captures),
                             [stalls_dir] * len(captures), pure=False)
        results = client.gather(futures)
    finally:
        client.close()
        if cluster:
            cluster.close()
    with tempfile.TemporaryDirectory(prefix="tapo-dask-") as tmp:
        parts = []
        for i, (capture, code, text, stderr) in enumerate(results):
            if stderr:
                sys.stderr.write(stderr)
            if code not in (0, 2) or text is None:
                print("tapo_dask: %s: tapo failed (%d)" % (capture, code), file=sys.stderr)
                status = 2
                continue
            status = max(status, code)
            part = os.path.join(tmp, "part-%06d.json" % i)
            with open(part, "w") as f:
                f.write(text)
            parts.append(part)
        cmd = [tapo, "merge", "--report", args.report]
        if args.partial:
            cmd += ["--partial", args.partial]
        merged = subprocess.run(cmd + parts)
        status = max(status, merged.returncode)
    return status


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--local", type=int, help="workers of a local cluster")
    where.add_argument("--scheduler", help="address of a running Dask scheduler")
    ap.add_argument("--tapo")
    ap.add_argument("--report", default="text", choices=("text", "json"))
    ap.add_argument("--partial")
    ap.add_argument("--stalls-dir")
    ap.add_argument("-o", dest="pref", action="append", default=[])
    ap.add_argument("captures", nargs="+")
    return run(ap.parse_args())


if __name__ == "__main__":
    sys.exit(main())
