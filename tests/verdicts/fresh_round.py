#!/usr/bin/env python3
"""The fresh round (README.md, "A fresh round") scored against TAPO.

fresh.tsv holds rows read blind from captures of two public collections
that are not in ../shared/real-captures, so CI cannot score them.  To score
them, get the captures once (any copy of the two repositories at the
commits fresh.tsv names), named OWNER__BASENAME in one folder:

    git -C packets show 0412fb1:tickedoffdeveloper.pcapng > DIR/chrissanders__tickedoffdeveloper.pcapng
    git -C packetlife-backup show 4a77a47:pcaps/telnet.cap > DIR/epiecs__telnet.cap

then:

    tests/verdicts/fresh_round.py DIR [--tapo build/tapo] [--misses]

TAPO is right on a row when its two-pass verdict at the frame is in the
expected set ("none": it reports no stall there), as in verdict_set.py.
"""

import argparse
import collections
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("captures", help="folder holding the captures, named as fresh.tsv names them")
    ap.add_argument("--tapo", default=os.path.join(HERE, "..", "..", "build", "tapo"))
    ap.add_argument("--misses", action="store_true")
    a = ap.parse_args()
    with open(os.path.join(HERE, "fresh.tsv")) as f:
        rows = list(csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t"))
    verdicts, right, total, confidence = {}, collections.Counter(), collections.Counter(), collections.Counter()
    for r in rows:
        if r["capture"] not in verdicts:
            out = subprocess.run([a.tapo, "-q", "-F", "jsonl", os.path.join(a.captures, r["capture"])],
                                 capture_output=True, text=True, check=True).stdout
            verdicts[r["capture"]] = {int(j["frame.number"]): j for j in map(json.loads, out.splitlines())}
        v = verdicts[r["capture"]].get(int(r["frame"]))
        cause = v["tapo.stall.cause"] if v else "none"
        ok = cause in r["expected"].split("|")
        for key in (r["vantage"], "all") + ((v["tapo.stall.confidence"],) if v else ()):
            total[key] += 1
            right[key] += ok
        if a.misses and not ok:
            print("MISS %s frame %s (%s): expected %s, TAPO %s" % (r["capture"], r["frame"], r["vantage"],
                                                                 r["expected"], cause))
    for key in sorted(total):
        print("%-9s %d of %d (%.1f%%)" % (key, right[key], total[key], 100.0 * right[key] / total[key]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
