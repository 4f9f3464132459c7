# Each run's test success against the SFT evaluation it adopted, episode by episode, from the hub's
# task-by-task record (`outcomes` in state.json), for runs whose every receipt is verified.
# Usage: python3 paired.py <run with the SFT evaluation> <run>...
import json, math, sys

sft = json.load(open(sys.argv[1] + "/state.json"))["evalSft"]
base = sft["aggregate"]["successRate"]
for run in sys.argv[2:]:
    e = json.load(open(run + "/state.json"))["evalRl"]
    a = e["aggregate"]
    line = f"{run}: {a['successRate']:.3f} ({a['verified']} verified), RL - SFT {a['successRate'] - base:+.3f}"
    if a["verified"] == a["n"] and sft["aggregate"]["verified"] == a["n"]:
        d = [int(x) - int(y) for x, y in zip(e["outcomes"], sft["outcomes"])]
        m = sum(d) / len(d)
        se = math.sqrt(sum((x - m) ** 2 for x in d) / (len(d) - 1) / len(d))
        line += f", paired {m:+.3f} ± {se:.3f} (gains {d.count(1)}, losses {d.count(-1)})"
    print(line)
