# usage: paired-by-goal.py <first pages json (first-pages.ts validation 500)> <baseline eval> <eval>:
# success of both, and the paired difference with its standard error clustered by goal (the instruction
# text; validation tasks 0..499 hold 213 distinct goals, so tasks repeat), as docs/results.md computes it.
import json, math, re, sys, collections
pages = json.load(open(sys.argv[1]))
goal = {int(i): re.search(r"Instruction: \[SEP\] (.*?) \[SEP\]", m[-1]["content"]).group(1) for i, m in pages.items()}
load = lambda d: {json.loads(l)["task"]["index"]: int(json.loads(l)["success"]) for l in open(f"{d}/trajectories.jsonl")}
a, b = load(sys.argv[2]), load(sys.argv[3])
d = {i: b[i] - a[i] for i in a}
n = len(d); m = sum(d.values()) / n
S = collections.defaultdict(float)
for i, x in d.items(): S[goal[i]] += x - m
C = len(S); se = math.sqrt(C / (C - 1) * sum(v * v for v in S.values())) / n
print(f"{sys.argv[2]}: {sum(a.values()) / n:.3f}; {sys.argv[3]}: {sum(b.values()) / n:.3f}; "
      f"paired {m:+.3f} ± {se:.3f} ({m / se:.1f} s.e., {C} goals); gained {sum(x > 0 for x in d.values())}, lost {sum(x < 0 for x in d.values())}")
