# Compares search-l1's RL policies with their SFT policy task by task on the same test tasks.
# For each method, d_i = (mean over its seeds of RL success on task i) - (SFT success on task i); the
# pooled difference is mean(d). Its paired standard error takes the distinct task as the unit: the 1,000
# test indices are 693 distinct tasks (task-keys.json), and a repeated task is the same greedy episode, so
# se = sqrt(C/(C-1) * sum_c S_c^2) / n, S_c the sum of (d_i - mean(d)) over the indices of task c. The
# seeds' own spread is a second paired figure: the sd of the three seeds' differences / sqrt(3). The
# unpaired standard error, sqrt(se_sft^2 + se_rl^2) with binomial se's (as docs/results.md gives it), is
# beside them.
# Usage: python3 paired.py outcomes.json task-keys.json   (prints one JSON line a method)
import json, math, re, sys
from collections import defaultdict

played = json.load(open(sys.argv[1]))
keys = json.load(open(sys.argv[2]))
outcomes = lambda name: {i: float(c) for i, c in enumerate(played[name])}
sft = outcomes("sft")
tasks = sorted(sft)
n = len(tasks)
assert len(keys) >= n, "task-keys.json holds fewer tasks than were played"
clusters = defaultdict(list)
for i in tasks:
    clusters[keys[i]].append(i)
for c in clusters.values():
    # A repeated task is one greedy episode played again: it must end the same way every time.
    assert len({sft[i] for i in c}) == 1, "a repeated task ended differently"
runs = defaultdict(dict)
for name in sorted(played):
    m = re.fullmatch(r"search-l1-(.+)-s(\d+)", name)
    if m:
        runs[m.group(1)][int(m.group(2))] = outcomes(name)
p0 = sum(sft.values()) / n
for method, seeds in runs.items():
    per_seed = {}
    for s, o in sorted(seeds.items()):
        assert sorted(o) == tasks, f"{method} s{s} played other tasks"
        per_seed[s] = {"success": round(sum(o.values()) / n, 3),
                       "fixed": sum(1 for i in tasks if o[i] > sft[i]),
                       "broke": sum(1 for i in tasks if o[i] < sft[i])}
    d = {i: sum(seeds[s][i] for s in seeds) / len(seeds) - sft[i] for i in tasks}
    mean = sum(d.values()) / n
    k = len(clusters)
    paired = math.sqrt(k / (k - 1) * sum(sum(d[i] - mean for i in c) ** 2 for c in clusters.values())) / n
    p1 = p0 + mean
    diffs = [per_seed[s]["success"] - p0 for s in per_seed]
    dm = sum(diffs) / len(diffs)
    by_seed = math.sqrt(sum((x - dm) ** 2 for x in diffs) / (len(diffs) - 1) / len(diffs)) if len(diffs) > 1 else float("nan")
    unpaired = math.sqrt(p0 * (1 - p0) / n + p1 * (1 - p1) / (n * len(seeds)))
    print(json.dumps({"method": method, "tasks": n, "distinct_tasks": k, "seeds": per_seed, "sft": round(p0, 3), "rl": round(p1, 3),
                      "difference": round(mean, 4), "paired_se": round(paired, 4), "paired_z": round(mean / paired, 2),
                      "seeds_se": round(by_seed, 4), "seeds_z": round(mean / by_seed, 2),
                      "unpaired_se": round(unpaired, 4), "unpaired_z": round(mean / unpaired, 2)}))
