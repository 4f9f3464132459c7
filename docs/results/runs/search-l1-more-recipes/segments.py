# Prints each run folder's validation success after every RL segment, the segment selected for the
# hub evaluation (the best on validation; the last of equals), and the test success, one line a run.
# Usage: python3 segments.py <run folder>...
import json, os, sys

for folder in sys.argv[1:]:
    s = json.load(open(os.path.join(folder, "state.json")))
    val = [seg.get("validation", {}).get("success") for seg in s["segments"]]
    chosen = s.get("evalRl", {}).get("checkpoint", "")
    picked = next((i + 1 for i, seg in enumerate(s["segments"]) if chosen.startswith(seg["dir"])), None)
    test = s.get("evalRl", {}).get("aggregate", {}).get("successRate")
    print(json.dumps({"run": os.path.basename(folder.rstrip("/")), "validation": val, "selected": picked, "test": test}))
