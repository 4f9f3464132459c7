# usage: failures.py <tasks json from world-tasks.ts> <eval folder>: each greedy episode of a search-l1
# eval by question kind and outcome: solved; no answer; the gold answer not in any passage shown;
# the gold shown and the answer equal to it but for the first letter; the gold shown and another answer.
import json, sys, re, collections
tasks = json.load(open(sys.argv[1]))
def kind(q):
    q = q.lower()
    for k, pat in [("year", "what year"), ("creator or founder", "who "), ("river", "river"), ("country", "country"),
                   ("employer", "work for"), ("headquarters", "headquarter"), ("birth city", "born"), ("city", "city")]:
        if pat in q: return k
    return q.split()[0:4].__str__()
res = collections.defaultdict(collections.Counter)
for l in open(f"{sys.argv[2]}/trajectories.jsonl"):
    e = json.loads(l); t = tasks[e["task"]["index"]]; k = kind(t["question"])
    steps = e["steps"]
    obs = " ".join(m["content"] for s in steps for m in s.get("observation", []))
    acts = [s["action"] for s in steps]
    ans = next((re.search(r"<answer>(.*?)</answer>", a, re.S).group(1) for a in acts if "<answer>" in a and "</answer>" in a), None)
    gold = t["answers"][0]
    right_passage = any(f"[1] {s}\n" in obs for s in t["supporting"])
    gold_in_obs = gold in obs
    if e["success"]: c = "solved"
    elif ans is None: c = "no answer"
    elif not gold_in_obs: c = "gold not shown" + (" (right title)" if right_passage else "")
    elif ans.strip() and gold[1:] and ans.strip()[1:] == gold[1:]: c = "first letter"
    else: c = "wrong answer, gold shown"
    res[k][c] += 1; res["ALL"][c] += 1
for k, v in sorted(res.items()): print(k, sum(v.values()), dict(v))
