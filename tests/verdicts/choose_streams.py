#!/usr/bin/python3
"""The reading rounds' choice of streams nobody had read (README.md, "Second round",
"Third round").

Per capture of a half (the development half in the second round, the held-out half in the
third), up to two TCP streams not read before: one with a retransmission Wireshark flags and one
with only gaps over 150 ms where there are, chosen at random (seed 26, then 27); a stream of over
400 packets is read as 250 of its packets around one such event.  Nothing about TAPO enters the
choice: only Wireshark's stream index, gaps and retransmission flags.  (Run before the round's
rows were added to verdicts.tsv: it skips the streams that table holds.)"""
import csv, random, subprocess, sys, collections
import os
HERE = os.path.dirname(os.path.abspath(__file__))
SH = os.path.join(HERE, '..', '..', '..', 'shared', 'real-captures') + '/'
split = [l.split('\t') for l in open(os.path.join(HERE, 'split.tsv')) if not l.startswith('#') and not l.startswith('capture')]
# verdicts/choose_streams.py [HALF [SEED]]: development and 26 (the second
# round), held-out and 27 (the third).
HALF = sys.argv[1] if len(sys.argv) > 1 else 'development'
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 26
dev = sorted(c for c, h, o in split if h == HALF)
read = collections.defaultdict(set)
for l in open(os.path.join(HERE, 'verdicts.tsv')):
    if l.startswith('#') or l.startswith('capture'): continue
    f = l.split('\t'); read[f[0]].add(f[2])
rng = random.Random(SEED)
out = []
for cap in dev:
    p = subprocess.run(['tshark', '--disable-protocol', 'tapo', '--disable-protocol', 'tapoflow', '-r', SH + cap, '-o', 'tcp.calculate_timestamps:TRUE', '-Y', 'tcp',
                        '-T', 'fields', '-e', 'tcp.stream', '-e', 'frame.number', '-e', 'tcp.time_delta',
                        '-e', 'tcp.analysis.retransmission'], capture_output=True, text=True)
    streams = collections.defaultdict(list)
    for line in p.stdout.splitlines():
        s, fr, d, r = (line.split('\t') + ['', '', '', ''])[:4]
        if not s: continue
        s = s.split(',')[0]
        streams[s].append((int(fr), float(d.split(',')[0] or 0), bool(r)))   # a tunnel: the outer TCP
    cand_r, cand_g = [], []
    for s, pk in streams.items():
        if s in read[cap]: continue
        ev = [i for i, (fr, d, r) in enumerate(pk) if d > 0.15 or r]
        if not ev: continue
        (cand_r if any(pk[i][2] for i in ev) else cand_g).append((s, pk, ev))
    rng.shuffle(cand_r); rng.shuffle(cand_g)
    pick = cand_r[:1] + cand_g[:1]
    if len(pick) < 2: pick += (cand_r[1:] + cand_g[1:])[:2 - len(pick)]
    for s, pk, ev in pick:
        if len(pk) <= 400:
            out.append((cap, 'tcp.stream == %s' % s, len(pk), len(ev)))
        else:
            i = rng.choice(ev); lo = max(0, i - 120); hi = min(len(pk) - 1, lo + 249)
            n = sum(1 for j in ev if lo <= j <= hi)
            out.append((cap, 'frames %d-%d (stream %s)' % (pk[lo][0], pk[hi][0], s), hi - lo + 1, n))
for o in out: print('\t'.join(map(str, o)))
