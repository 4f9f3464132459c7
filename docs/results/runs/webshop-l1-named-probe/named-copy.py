# What a named-option policy clicks on its item page (the probe's level 1: click[<name>: <value>]), against
# the phrase the instruction names ("... with color: navy blue, and price ..."), per `edgegym eval` folder.
# Usage: python3 named-copy.py <eval dir>...
import collections, json, re, sys

for d in sys.argv[1:]:
    kinds, solved, values, n = collections.Counter(), collections.Counter(), collections.Counter(), 0
    for line in open(d + "/trajectories.jsonl"):
        t = json.loads(line)
        n += 1
        named = re.search(r"with ([a-z ]+: [^,]+), and price", json.dumps(t))
        want = named.group(1) if named else None
        m = re.search(r'"command":"(.*?)"\}', t["steps"][1]["action"]) if len(t["steps"]) > 1 else None
        click = m.group(1) if m else ""
        if click == "click[buy now]" or not click.startswith("click[") or ":" not in click:
            kind = "no option clicked"
        else:
            got = click[6:-1]
            values[got.split(": ", 1)[-1]] += 1
            if got == want:
                kind = "the instruction's value"
            elif want is not None and got.split(":")[0] == want.split(":")[0]:
                kind = "the right name, another value"
            else:
                kind = "another name"
        kinds[kind] += 1
        solved[kind] += t["success"]
    print(f"{d}: {n} episodes, success {sum(solved.values())}")
    for kind, count in kinds.most_common():
        print(f"  {kind}: {count} ({solved[kind]} solved)")
    print("  values clicked most:", ", ".join(f"{v} {c}" for v, c in values.most_common(6)))
