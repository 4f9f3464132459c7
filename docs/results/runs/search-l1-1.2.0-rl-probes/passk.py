import json, sys, glob, collections
# usage: passk.py <greedy dir> <sampled dirs...>: greedy success, mean sampled success, pass@k, and
# how many greedy failures any sample solves
def load(d):
    out = {}
    for l in open(f"{d}/trajectories.jsonl"):
        e = json.loads(l); out[e["task"]["index"]] = bool(e["success"])
    return out
g = load(sys.argv[1]); runs = [load(d) for d in sys.argv[2:]]
n = len(g); k = len(runs)
anyok = {i: any(r.get(i, False) for r in runs) for i in g}
frac = {i: sum(r.get(i, False) for r in runs) / k for i in g}
fails = [i for i in g if not g[i]]
print(json.dumps({
  "n": n, "k": k, "greedy": sum(g.values()) / n,
  "sampled_mean": sum(frac.values()) / n,
  f"pass@{k}": sum(anyok.values()) / n,
  "greedy_failures": len(fails),
  "greedy_failures_solved_by_some_sample": sum(anyok[i] for i in fails),
  "greedy_failures_with_sample_rate>=0.5": sum(frac[i] >= 0.5 for i in fails),
  "greedy_successes_with_sample_rate<0.5": sum(frac[i] < 0.5 for i in g if g[i]),
}))
