# Adds the task-by-task record (`outcomes`) to the hub evaluations of run folders made before the
# pipeline wrote it (2026-11-27), from the hub's own database: each evaluation run's verified episodes
# in the local D1 that `npm start --persist-to <dir>` kept. A task's success is its receipt's success
# claim (the hub's rule, shared/success.ts claimedSuccess: the claim, else a positive final reward); a
# task without a verified episode is a failure, as in the hub's aggregate. The record is written only
# when it gives exactly the aggregate's n and success count; an evaluation whose run is in none of the
# databases is left as it is.
# Usage: python3 backfill-outcomes.py --db <persist dir>... --runs <run folder>...
import argparse, base64, glob, json, os, sqlite3, sys

ap = argparse.ArgumentParser()
ap.add_argument("--db", nargs="+", required=True)
ap.add_argument("--runs", nargs="+", required=True)
args = ap.parse_args()

def claims(receipt):
    payload = receipt.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))

runs = {}
for d in args.db:
    for f in glob.glob(os.path.join(d, "v3/d1/miniflare-D1DatabaseObject/*.sqlite")):
        if f.endswith("metadata.sqlite"):
            continue
        con = sqlite3.connect(f"file:{f}?mode=ro", uri=True)
        try:
            rows = con.execute("select id, tasks from hub_eval_runs where status = 'finished'").fetchall()
        except sqlite3.OperationalError:
            continue
        for run_id, tasks in rows:
            solved = {}
            for index, receipt in con.execute("select task_index, receipt from hub_episodes where run_id = ?", (run_id,)):
                c = claims(receipt)
                solved[index] = c["success"] if isinstance(c.get("success"), bool) else c["finalReward"] > 0
            runs[run_id] = "".join("1" if solved.get(i, False) else "0" for i in json.loads(tasks))
        con.close()

for folder in args.runs:
    path = os.path.join(folder, "state.json")
    state = json.load(open(path))
    changed = []
    for stage in ("evalSft", "evalRl"):
        e = state.get(stage)
        if e is None or "outcomes" in e or e["runId"] not in runs:
            continue
        outcomes = runs[e["runId"]]
        agg = e["aggregate"]
        if len(outcomes) != agg["n"] or outcomes.count("1") != round(agg["successRate"] * agg["n"]):
            sys.exit(f"{folder} {stage}: the database's {outcomes.count('1')}/{len(outcomes)} differs from the aggregate")
        e["outcomes"] = outcomes
        changed.append(f"{stage} {e['runId']} {outcomes.count('1')}/{len(outcomes)}")
    if changed:
        with open(path, "w") as f:
            f.write(json.dumps(state, indent=2, ensure_ascii=False) + "\n")
    print(folder, "; ".join(changed) or "nothing to add")
