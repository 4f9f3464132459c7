// What a shopper could buy after one search on webshop-l1 (300 products, a search shows 5), per train
// goal 0..N-1: every product shown scored as if bought with the instruction's option. Prints one JSON
// line per query: the share of goals whose best shown product scores 1, and the mean reward and share
// scored 1 of three ways to choose (the first shown; the first whose shown price is under the bound,
// the expert's rule). Usage: npx tsx docs/results/runs/webshop-l1-expert/choices.ts [N]
import { openLocalDb } from "../../../../environments/data/local-db.js";
import { generateSecrets } from "../../../../environments/kit/index.js";
import { builtinSource } from "../../../../environments/webshop/catalog.js";
import { type Goal, goalOptionValues } from "../../../../environments/webshop/goal.js";
import type { Product } from "../../../../environments/webshop/product.js";
import { webshopReward } from "../../../../environments/webshop/reward.js";

const n = Number(process.argv[2] ?? 300);
const runtime = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: await openLocalDb(":memory:") } };
const source = builtinSource(300, 1);
const store = await source.store(runtime);
const queries: Record<string, (g: Goal) => string> = {
  "the category query": (g) => g.query,
  "the whole instruction": (g) => g.instruction,
};
const score = (p: Product, g: Goal) => {
  const offered = new Set(Object.values(p.options).flat());
  return webshopReward(p, goalOptionValues(g).filter((v) => offered.has(v)), g).total;
};
for (const [name, query] of Object.entries(queries)) {
  const sums = { best: 0, bestOne: 0, first: 0, firstOne: 0, underBound: 0, underBoundOne: 0 };
  for (let i = 0; i < n; i++) {
    const g = (await source.tasks.get("train", i, runtime)) as Goal;
    const hits = await store.search(query(g));
    if (!hits.ok) throw new Error(hits.error);
    const shown = await store.products(hits.value);
    if (!shown.ok) throw new Error(shown.error);
    const rewards = shown.value.map((s) => score(s.product, g));
    const under = shown.value.findIndex((s) => (s.product.pricing[0] ?? 100) <= g.priceUpper);
    const best = Math.max(0, ...rewards);
    const first = rewards[0] ?? 0;
    const pick = rewards[under < 0 ? 0 : under] ?? 0;
    sums.best += best;
    sums.bestOne += best === 1 ? 1 : 0;
    sums.first += first;
    sums.firstOne += first === 1 ? 1 : 0;
    sums.underBound += pick;
    sums.underBoundOne += pick === 1 ? 1 : 0;
  }
  const r = (x: number) => Math.round((x / n) * 1000) / 1000;
  console.log(
    JSON.stringify({
      query: name,
      goals: n,
      bestShown: { meanReward: r(sums.best), scored1: r(sums.bestOne) },
      first: { meanReward: r(sums.first), scored1: r(sums.firstOne) },
      firstUnderBound: { meanReward: r(sums.underBound), scored1: r(sums.underBoundOne) },
    }),
  );
}
