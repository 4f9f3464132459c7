// Success of an `edgegym eval` on webshop-l1 validation split by the rank of the product the expert would
// open (the first of the 5 results shown under the instruction's price bound; 0: none is).
// Usage: npx tsx first-affordable.ts <eval dir>
import { readFileSync } from "node:fs";
import { openLocalDb } from "../../../../environments/data/local-db.js";
import { generateSecrets } from "../../../../environments/kit/index.js";
import { builtinSource } from "../../../../environments/webshop/catalog.js";
import type { Goal } from "../../../../environments/webshop/goal.js";
const runtime = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: await openLocalDb(":memory:") } };
const source = builtinSource(300, 1);
const store = await source.store(runtime);
const by = new Map<number, { n: number; ok: number }>();
for (const line of readFileSync(process.argv[2]! + "/trajectories.jsonl", "utf8").trim().split("\n")) {
  const e = JSON.parse(line);
  const goal = (await source.tasks.get(e.task.split, e.task.index, runtime)) as Goal;
  const hits = await store.search(goal.instruction.toLowerCase());
  if (!hits.ok) throw new Error();
  const shown = await store.products(hits.value);
  if (!shown.ok) throw new Error();
  const k = shown.value.findIndex((s) => (s.product.pricing[0] ?? 100) <= goal.priceUpper) + 1;
  const b = by.get(k) ?? { n: 0, ok: 0 };
  b.n++; if (e.success) b.ok++;
  by.set(k, b);
}
console.log(JSON.stringify([...by].sort((a, b) => a[0] - b[0])));
