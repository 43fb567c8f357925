#!/usr/bin/env python3
"""The fresh rounds (README.md, "A fresh round", "A second fresh round",
"A third fresh round", "A fourth fresh round", "A fifth fresh round", "A
sixth fresh round", "A seventh fresh round", "An eighth fresh round", "A
ninth fresh round", "A tenth fresh round") and the rule checks of the
thirteenth session scored against TAPO.

fresh.tsv (the first round) and fresh2.tsv (the second, on the
collections' other captures) hold rows read blind from captures of two
public collections that are not in ../shared/real-captures; fresh3.tsv
(the third), fresh4.tsv (the fourth), fresh5.tsv (the fifth), fresh6.tsv
(the sixth), fresh7.tsv (the seventh), fresh8.tsv (the eighth) and
fresh9.tsv (the ninth) from
zeek's test traces; fresh10.tsv (the tenth) from nDPI's test captures
(ntop/nDPI at 3b1286ab0, tests/cfgs/default/pcap, named ndpi__ and the
file's name; the eight in ../shared/real-captures left out); fresh11.tsv
(round 11) the stalls the thirteenth session's rules changed on other
nDPI captures, with controls.  CI cannot score them.  To score them, get the captures once (any copy of the
repositories at the commits the tables name), in one folder: the first
two collections' named OWNER__BASENAME, zeek's named zeek3__ and the path
under testing/btest/Traces with "/" as "__":

    git -C packets show 0412fb1:tickedoffdeveloper.pcapng > DIR/chrissanders__tickedoffdeveloper.pcapng
    git -C packetlife-backup show 4a77a47:pcaps/telnet.cap > DIR/epiecs__telnet.cap
    git -C zeek show a13de64:testing/btest/Traces/ftp/bigtransfer.pcap > DIR/zeek3__ftp__bigtransfer.pcap
    git -C nDPI show 3b1286ab0:tests/cfgs/default/pcap/Oscar.pcap > DIR/ndpi__Oscar.pcap

then:

    tests/verdicts/fresh_round.py DIR [--tapo build/tapo] [--misses] [--round 1|2|...|11]

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
# Each round and its table.
ROUNDS = (("1", "fresh.tsv"), ("2", "fresh2.tsv"), ("3", "fresh3.tsv"), ("4", "fresh4.tsv"), ("5", "fresh5.tsv"),
          ("6", "fresh6.tsv"), ("7", "fresh7.tsv"), ("8", "fresh8.tsv"), ("9", "fresh9.tsv"), ("10", "fresh10.tsv"),
          ("11", "fresh11.tsv"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("captures", help="folder holding the captures, named as the tables name them")
    ap.add_argument("--tapo", default=os.path.join(HERE, "..", "..", "build", "tapo"))
    ap.add_argument("--misses", action="store_true")
    ap.add_argument("--round", choices=[rnd for rnd, _ in ROUNDS],
                    help="one round only (default: each, and all together)")
    a = ap.parse_args()
    rows = []
    for rnd, name in ROUNDS:
        if a.round in (None, rnd):
            with open(os.path.join(HERE, name)) as f:
                rows += [dict(r, round=rnd) for r in
                         csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t")]
    verdicts, right, total = {}, collections.Counter(), collections.Counter()
    for r in rows:
        if r["capture"] not in verdicts:
            out = subprocess.run([a.tapo, "-q", "-F", "jsonl", os.path.join(a.captures, r["capture"])],
                                 capture_output=True, text=True, check=True).stdout
            verdicts[r["capture"]] = {int(j["frame.number"]): j for j in map(json.loads, out.splitlines())}
        v = verdicts[r["capture"]].get(int(r["frame"]))
        cause = v["tapo.stall.cause"] if v else "none"
        ok = cause in r["expected"].split("|")
        for key in (r["vantage"], "all") + ((v["tapo.stall.confidence"],) if v else ()):
            for scope in ("all rounds", "round " + r["round"]):
                total[(scope, key)] += 1
                right[(scope, key)] += ok
        if a.misses and not ok:
            print("MISS round %s %s frame %s (%s): expected %s, TAPO %s" % (r["round"], r["capture"], r["frame"],
                                                                          r["vantage"], r["expected"], cause))
    for key in sorted(total):
        if a.round and key[0] == "all rounds":
            continue
        print("%-11s %-9s %d of %d (%.1f%%)" % (key + (right[key], total[key], 100.0 * right[key] / total[key])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
