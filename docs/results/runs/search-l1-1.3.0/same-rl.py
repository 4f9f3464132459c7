"""same-rl.py <runs dir>: does each search-l1 1.3.0 run's RL repeat its 1.2.0 twin, iteration for iteration?
Compares rl-metrics.jsonl with every perf/ and time field left out, and the client's transport counters
(env/requests, env/retries: 429s waited out depend on what else shared the hub), and the validation figure per segment."""
import json
import sys
from pathlib import Path

runs = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/results/runs")
TRANSPORT = {"env/requests", "env/retries"}
TWINS = {"t16-grpo": "search-l1-t16-grpo", "reinforce-pp": "search-l1-reinforce-pp", "rloo": "search-l1-rloo"}


def metrics(d: Path) -> list[dict]:
    rows = [json.loads(line) for line in (d / "rl-metrics.jsonl").open()]
    return [{k: v for k, v in r.items() if not k.startswith("perf/") and "time" not in k and "seconds" not in k and k not in TRANSPORT} for r in rows]


def validation(d: Path) -> list:
    return [s.get("validation", {}).get("success") for s in json.load((d / "state.json").open())["segments"]]


for name, twin in TWINS.items():
    for seed in (1, 2, 3):
        new, old = runs / f"search-l1-1.3.0-{name}-s{seed}", runs / f"{twin}-s{seed}"
        if not new.exists() or not old.exists():
            print(f"{name} s{seed}: missing {new if not new.exists() else old}")
            continue
        same = metrics(new) == metrics(old)
        print(f"{name} s{seed}: metrics {'equal' if same else 'DIFFER'}; validation {validation(new)} vs {validation(old)}")
