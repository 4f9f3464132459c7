# The first two commands of each episode of `edgegym eval` folders (webshop-l1 1.5.0: the result opened
# and the option letter clicked, or buy), with how many of each ended in success, and the mean score.
# Usage: python3 choices.py <eval dir>...
import collections, json, re, sys

for d in sys.argv[1:]:
    shown, solved, n, score = collections.Counter(), collections.Counter(), 0, 0.0
    for line in open(d + "/trajectories.jsonl"):
        t = json.loads(line)
        n += 1
        score += t["return"]
        acts = []
        for s in t["steps"][:2]:
            m = re.search(r'"command":"(.*?)"\}', s["action"])
            acts.append(m.group(1) if m else s["action"][:30])
        key = " ".join(acts).replace("click[buy now]", "buy")
        shown[key] += 1
        solved[key] += t["success"]
    print(f"{d}: {n} episodes, success {sum(solved.values())}, mean score {score / n:.3f}")
    for key, count in sorted(shown.items()):
        print(f"  {key!r}: {count} ({solved[key]} solved)")
