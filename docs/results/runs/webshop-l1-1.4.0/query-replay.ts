// What a policy's first search was worth on webshop-l1 (1.3.0 and before, which opened on the search
// page): the 5 results its own query gets from today's level-1 catalog, the product the expert would
// open there (the first shown under the price bound) and the options it would click, scored by the env's
// reward. Beside it the same for the instruction's own words, the expert's query. Reads
// `first-searches.jsonl` (each stage's first search in its validation episodes, taken from their
// `edgegym eval` trajectories). Usage: npx tsx query-replay.ts [first-searches.jsonl]
import { readFileSync } from "node:fs";
import { openLocalDb } from "../../../../environments/data/local-db.js";
import { generateSecrets } from "../../../../environments/kit/index.js";
import { builtinSource } from "../../../../environments/webshop/catalog.js";
import type { Goal } from "../../../../environments/webshop/goal.js";
import { goalOptionValues } from "../../../../environments/webshop/goal.js";
import { webshopReward } from "../../../../environments/webshop/reward.js";

const runtime = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: await openLocalDb(":memory:") } };
const source = builtinSource(300, 1);
const store = await source.store(runtime);

/** The reward of the expert's purchase from the results of `query`. */
async function replay(query: string, goal: Goal): Promise<number> {
  const hits = await store.search(query.toLowerCase());
  if (!hits.ok) throw new Error(hits.error);
  const shown = await store.products(hits.value);
  if (!shown.ok) throw new Error(shown.error);
  const p = (shown.value.find((s) => (s.product.pricing[0] ?? 100) <= goal.priceUpper) ?? shown.value[0])?.product;
  if (p === undefined) return 0;
  const offered = new Set(Object.values(p.options).flat());
  return webshopReward(p, goalOptionValues(goal).filter((v) => offered.has(v)), goal).total;
}

type Search = { stage: string; split: string; index: number; query: string | null };
const stages = new Map<string, { episodes: number; policyQuery: number; instructionQuery: number }>();
const file = process.argv[2] ?? new URL("first-searches.jsonl", import.meta.url).pathname;
for (const line of readFileSync(file, "utf8").trim().split("\n")) {
  const e = JSON.parse(line) as Search;
  const goal = (await source.tasks.get(e.split, e.index, runtime)) as Goal;
  const s = stages.get(e.stage) ?? { episodes: 0, policyQuery: 0, instructionQuery: 0 };
  s.episodes++;
  if (e.query !== null && (await replay(e.query, goal)) === 1) s.policyQuery++;
  if ((await replay(goal.instruction, goal)) === 1) s.instructionQuery++;
  stages.set(e.stage, s);
}
for (const [stage, s] of stages) {
  const rate = (k: number) => +(k / s.episodes).toFixed(3);
  console.log(JSON.stringify({ stage, episodes: s.episodes, policyQuery: rate(s.policyQuery), instructionQuery: rate(s.instructionQuery) }));
}
