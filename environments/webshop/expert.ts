import type { Result } from "../../shared/result.js";
import type { CatalogStore } from "./catalog-store.js";
import { type Goal, goalOptionValues } from "./goal.js";
import { optionButtons, type PageIds, type PageState, pageHits, resultId } from "./pages.js";
import type { Product } from "./product.js";

/**
 * The price a results page shows for a product, as a shopper reads it: the single price, or the low end
 * of a range. Missing pricing shows as $100 (`priceTag`).
 */
const shownPrice = (p: Product) => p.pricing[0] ?? 100;

/**
 * The scripted shopper's next command, decided only from what the agent is shown: the instruction and
 * the current page. It searches the instruction's own words, opens the first result on the page whose
 * shown price is under the instruction's bound (the first result when none is), clicks each option the
 * instruction names that the product offers, and buys. It never uses the goal's hidden product, so a
 * policy can learn every command it sends; it buys a reward-1 product on about 85% of webshop-l1's
 * train goals (docs/environments.md). It clicks a result and an option by the id `ids` gives it.
 */
export async function expertCommand(
  state: PageState,
  goal: Goal,
  store: CatalogStore,
  ids: PageIds = "product",
): Promise<Result<string>> {
  if (state.p === "start" || state.p === "done") return { ok: true, value: `search[${goal.instruction}]` };
  if (state.p === "sub") return { ok: true, value: "click[< prev]" };

  if (state.p === "item") {
    const found = await store.products([state.item]);
    if (!found.ok) return found;
    const item = found.value[0]?.product;
    const offered = item ? optionButtons(item, ids, goal.instruction) : [];
    const chosen = new Set(Object.values(state.opts));
    const next = goalOptionValues(goal)
      .filter((v) => !chosen.has(v))
      .flatMap((v) => offered.filter((b) => b.value === v))[0];
    return { ok: true, value: next === undefined ? "click[buy now]" : `click[${next.id}]` };
  }

  const hits = pageHits(state);
  const shown = await store.products(hits);
  if (!shown.ok) return shown;
  const pick = shown.value.find((h) => shownPrice(h.product) <= goal.priceUpper) ?? shown.value[0];
  if (pick === undefined) return { ok: true, value: `search[${goal.instruction}]` };
  return { ok: true, value: `click[${resultId(state, hits.indexOf(pick.index), pick.product, ids)}]` };
}
