# usage: by-product.py <products json (products.ts)> <run folder of npm start>...: the runs' SFT and RL hub
# evaluations task by task (state.json `outcomes`), grouped by product, and the paired difference with its
# standard error clustered by product, sqrt(C/(C-1)·Σ_c S_c²)/n, as docs/results.md clusters by goal.
# Several run folders (seeds from one SFT policy) are pooled: d_i is their mean RL outcome minus SFT's.
import json, math, sys, collections
# With --evals <baseline eval dir> <eval dir>..., it compares `edgegym eval` folders (trajectories.jsonl)
# instead: the first plays the part of SFT.
products = json.load(open(sys.argv[1]))
if sys.argv[2] == "--evals":
    def played(d):
        won = {json.loads(l)["task"]["index"]: int(json.loads(l)["success"]) for l in open(f"{d}/trajectories.jsonl")}
        return [won[i] for i in range(len(won))]
    sft, others = played(sys.argv[3]), [played(d) for d in sys.argv[4:]]
    states = others
    rl = [sum(o[i] for o in others) / len(others) for i in range(len(sft))]
else:
    states = [json.load(open(f"{d}/state.json")) for d in sys.argv[2:]]
    sft = [int(c) for c in states[0]["evalSft"]["outcomes"]]
    rl = [sum(int(s["evalRl"]["outcomes"][i]) for s in states) / len(states) for i in range(len(sft))]
n = len(sft)
by = collections.defaultdict(lambda: [0, 0, 0.0])
for i in range(n):
    b = by[products[i]]; b[0] += 1; b[1] += sft[i]; b[2] += rl[i]
changed = {p for i, p in enumerate(products[:n]) if sft[i] != rl[i]}
for p, (k, a, b) in sorted(by.items(), key=lambda x: (-x[1][0], x[0])):
    print(f"{p:12s} tasks {k:3d}  sft {a / k:.2f}  rl {b / k:.2f}{'  changed' if p in changed else ''}")
d = [rl[i] - sft[i] for i in range(n)]; m = sum(d) / n
S = collections.defaultdict(float)
for i in range(n): S[products[i]] += d[i] - m
C = len(S); se = math.sqrt(C / (C - 1) * sum(v * v for v in S.values())) / n
print(f"sft {sum(sft) / n:.3f}, rl {sum(rl) / n:.3f} ({len(states)} run(s)); paired {m:+.3f} ± {se:.3f} clustered by "
      f"product ({C} products, {len(changed)} with a changed outcome)")
