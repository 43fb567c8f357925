#!/usr/bin/env python3
"""What a test run asked of tshark, from its TAPO_TSHARK_LOG file.

    TAPO_TSHARK_LOG=/tmp/tshark.jsonl scripts/test
    tests/tshark_census.py /tmp/tshark.jsonl

Per test module: tshark commands asked for, answered from the run's cache
(tshark_cache.py) and so actually started; then the distinct commands, the
captures read, and the commands asked more than once (the duplicates a
cache answers).
"""

import collections
import json
import sys


def capture(args):
    return next((args[i + 1] for i, a in enumerate(args[:-1]) if a == "-r"), None)


def main(path):
    with open(path) as f:
        entries = [json.loads(line) for line in f if line.strip()]
    asked = [e for e in entries if "caller" in e]
    kept = collections.Counter(json.dumps(e["args"]) for e in entries if e.get("event") == "kept")
    by_module = collections.defaultdict(lambda: [0, 0])
    remaining = collections.Counter(kept)
    for e in asked:
        row = by_module[e["caller"]]
        row[0] += 1
        key = json.dumps(e["args"])
        if remaining[key]:
            remaining[key] -= 1
            row[1] += 1
    print("%-28s %8s %8s %8s" % ("module", "asked", "cached", "started"))
    for module, (n, c) in sorted(by_module.items(), key=lambda kv: -kv[1][0]):
        print("%-28s %8d %8d %8d" % (module, n, c, n - c))
    total_kept = sum(kept.values())
    print("%-28s %8d %8d %8d" % ("all", len(asked), total_kept, len(asked) - total_kept))
    exact = collections.Counter((json.dumps(e["args"]), e["plugin"]) for e in asked)
    captures = collections.Counter(capture(e["args"]) for e in asked if capture(e["args"]))
    print("\n%d distinct commands; %d captures read %d times" % (
        len(exact), len(captures), sum(captures.values())))
    print("most repeated commands:")
    for (args, _), n in exact.most_common(5):
        if n > 1:
            print("  %4d x tshark %s" % (n, " ".join(json.loads(args))[:150]))


if __name__ == "__main__":
    main(sys.argv[1])
