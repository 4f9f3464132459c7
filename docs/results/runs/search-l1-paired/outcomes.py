# Each evaluation's success task by task, from eval.sh's folders: {"<name>": "0110...", ...}, where
# character i is test task i (1 solved). Usage: python3 outcomes.py <eval.sh out dir> > outcomes.json
import json, os, sys

root = sys.argv[1]
out = {}
for name in sorted(os.listdir(root)):
    path = os.path.join(root, name, "trajectories.jsonl")
    if os.path.exists(path):
        rows = sorted((json.loads(l) for l in open(path)), key=lambda r: r["task"]["index"])
        assert [r["task"]["index"] for r in rows] == list(range(len(rows))), f"{name}: not tasks 0..n-1"
        out[name] = "".join("1" if r["success"] else "0" for r in rows)
print(json.dumps(out, indent=0))
