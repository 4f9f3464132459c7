"""Which result a policy opens first, against the expert's choice (the first result whose shown price is
under the instruction's bound), on the same tasks.

Usage: python3 first-click.py <expert demos.jsonl> <eval out folder>...
(the demos from `edgegym demos --env local:webshop-l1 --split validation --episodes 500 --out F`, the
folders from `edgegym eval ... --out D`, each holding trajectories.jsonl)."""
import collections
import json
import re
import sys

CLICK = re.compile(r'"command":"click\[(\d)\]"')


def first(action):
    m = CLICK.search(action or "")
    return m.group(1) if m else "?"


expert = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    expert[d["task"]["index"]] = (first(d["steps"][0]["response"]), d["success"])
for folder in sys.argv[2:]:
    pairs = collections.Counter()
    solved = collections.Counter()
    opens = collections.Counter()
    for line in open(f"{folder}/trajectories.jsonl"):
        d = json.loads(line)
        i = d["task"]["index"]
        if i not in expert:
            continue
        e = expert[i][0]
        p = first(d["steps"][0]["action"])
        opens[p] += 1
        key = "expert opens 1" if e == "1" else "expert opens 2-5"
        pairs[(key, "same" if p == e else "other")] += 1
        solved[(key, d["success"])] += 1
    n = sum(pairs.values())
    agree = sum(v for (k, s), v in pairs.items() if s == "same")
    print(f"{folder}: {n} tasks, first click as the expert's on {agree} ({agree / n:.3f})")
    for key in ("expert opens 1", "expert opens 2-5"):
        same, other = pairs[(key, "same")], pairs[(key, "other")]
        print(f"  {key}: {same + other} tasks; the policy opens the same result on {same}, another on {other}; "
              f"solved {solved[(key, True)]}")
    print("  the policy opens first: " + ", ".join(f"{k} on {v}" for k, v in sorted(opens.items())))
