import type { Result } from "../../shared/result.js";
import type { CatalogStore } from "./catalog-store.js";
import { type Goal, goalOptionValues } from "./goal.js";
import { type PageState, PRODUCT_WINDOW } from "./pages.js";

/**
 * The scripted shopper's next command: search the goal's query, page through the results to the goal's
 * product (searching its title instead when the query does not bring it up), open it, choose each goal
 * option it has not chosen yet, and buy.
 */
export async function expertCommand(
  state: PageState,
  goal: Goal,
  store: CatalogStore,
): Promise<Result<string>> {
  const query = goal.query.toLowerCase();
  const title = goal.name.toLowerCase();
  if (state.p === "start" || state.p === "done") return { ok: true, value: `search[${query}]` };

  if (state.p === "item" || state.p === "sub") {
    const found = await store.products([state.item]);
    if (!found.ok) return found;
    if (found.value[0]?.product.asin !== goal.asin) return { ok: true, value: "click[< prev]" };
    if (state.p === "sub") return { ok: true, value: "click[< prev]" };
    const offered = new Set(Object.values(found.value[0].product.options).flat());
    const chosen = new Set(Object.values(state.opts));
    const next = goalOptionValues(goal).find((v) => offered.has(v) && !chosen.has(v));
    return { ok: true, value: next === undefined ? "click[buy now]" : `click[${next}]` };
  }

  const hits = await store.products(state.hits);
  if (!hits.ok) return hits;
  const rank = hits.value.findIndex((h) => h.product.asin === goal.asin);
  if (rank < 0) return { ok: true, value: state.q === query ? `search[${title}]` : `search[${query}]` };
  const targetPage = Math.floor(rank / PRODUCT_WINDOW) + 1;
  if (targetPage > state.page) return { ok: true, value: "click[next >]" };
  if (targetPage < state.page) return { ok: true, value: "click[< prev]" };
  return { ok: true, value: `click[${goal.asin.toLowerCase()}]` };
}
