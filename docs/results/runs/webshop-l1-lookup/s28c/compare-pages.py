# usage: compare-pages.py <hub.json> <local-fts.json> <memory.json>: how many first pages differ between
# a hub evaluation's stored trajectories (sqlite3 -json, rows {i, m}), this host with its
# .edgegym/data.db, and a host with no database (first-pages.ts).
import json, sys
hub = {r["i"]: json.loads(r["m"]) for r in json.load(open(sys.argv[1]))}
fts = json.load(open(sys.argv[2])); mem = json.load(open(sys.argv[3]))
same = lambda a, b: json.dumps(a) == json.dumps(b)
print(f"with data.db vs no database: {sum(not same(fts[k], mem[k]) for k in fts)} of {len(fts)} differ")
print(f"hub vs no database: {sum(not same(hub[i], mem[str(i)]) for i in hub)} of {len(hub)} differ")
print(f"hub vs with data.db: {sum(not same(hub[i], fts[str(i)]) for i in hub)} of {len(hub)} differ")
