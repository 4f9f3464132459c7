# Usage: python3 count.py demos.jsonl (from `npx edgegym demos --env local:webshop-l1 --episodes 300 --out demos.jsonl`)
import json, sys
n = title = solved = steps = tokens = 0
for line in open(sys.argv[1]):
    d = json.loads(line)
    n += 1
    solved += d["success"]
    steps += len(d["steps"])
    tokens += sum(len(s["promptIds"]) + len(s["responseIds"]) for s in d["steps"])
    if sum("search[" in s["response"] for s in d["steps"]) > 1:
        title += 1
print(json.dumps({"episodes": n, "solved": solved, "second_search_for_the_goal_title": title,
                  "share": round(title / n, 3), "steps_mean": round(steps / n, 2), "row_tokens_mean": round(tokens / n)}))
