import type { Result } from "../../shared/result.js";
import type { CatalogStore } from "./catalog-store.js";
import type { Goal } from "./goal.js";
import { type Page, type PageIds, type PageState, pageHits, renderPage } from "./pages.js";
import type { Product } from "./product.js";
import { type WebshopReward, webshopReward } from "./reward.js";

/**
 * WebShop's `parse_action`: Python's `re.match(r'(.+)\[(.+)\]', action)`, anchored at the start only,
 * both groups greedy (so the name runs to the last `[` that still has a `]` after it). The argument is
 * lowercased, as the text env does; the name is not.
 */
export function parseAction(command: string): { name: string; arg: string } | undefined {
  const m = /^(.+)\[(.+)\]/.exec(command);
  if (!m) return undefined;
  return { name: m[1] as string, arg: (m[2] as string).toLowerCase() };
}

/** Characters of the keywords kept in the session state: bounds the token whatever the model types. */
const MAX_KEPT_QUERY = 256;

/** The products a page shows: the current results page, or the item. */
function shownIndexes(state: PageState): number[] {
  if (state.p === "results") return pageHits(state);
  if (state.p === "item" || state.p === "sub") return [state.item];
  return [];
}

/** Renders the page for `state`, fetching the products it shows; `ids` names its results and options. */
export async function showPage(
  state: PageState,
  goal: Goal,
  store: CatalogStore,
  ids: PageIds = "product",
): Promise<Result<Page>> {
  const found = await store.products(shownIndexes(state));
  if (!found.ok) return found;
  const products = new Map<number, Product>(found.value.map((f) => [f.index, f.product]));
  return { ok: true, value: renderPage(state, goal.instruction, products, 0, ids) };
}

/**
 * The results page of a search for `query`, the start of every episode at a level that opens there;
 * `per` results a page where not WebShop's 10.
 */
export async function searchState(
  query: string,
  store: CatalogStore,
  per?: number,
): Promise<Result<PageState>> {
  const hits = await store.search(query);
  if (!hits.ok) return hits;
  const q = query.slice(0, MAX_KEPT_QUERY);
  return { ok: true, value: { p: "results", q, page: 1, hits: hits.value, ...keptPer(per) } };
}

/** `per` as a state keeps it: absent for WebShop's 10, so those states are as they always were. */
const keptPer = (per: number | undefined) => (per === undefined ? {} : { per });

export type Browsed = {
  state: PageState;
  page: Page;
  /** Set when `buy now` ended the episode. */
  reward?: WebshopReward;
  /** False when the action was not available: the page is unchanged (WebShop does nothing). */
  valid: boolean;
};

async function purchase(state: PageState & { p: "item" }, goal: Goal, store: CatalogStore) {
  const found = await store.products([state.item]);
  if (!found.ok) return found;
  const bought = found.value[0]?.product;
  if (!bought) return { ok: false as const, error: `product ${state.item} is missing from the catalog` };
  return { ok: true as const, value: webshopReward(bought, Object.values(state.opts), goal) };
}

/** Where a click leads from the current page, following WebShop's `SimServer.receive`. */
function clickTarget(state: PageState, arg: string, page: Page): PageState | "buy" {
  if (arg === "buy now") return "buy";
  if (arg === "back to search") return { p: "start", ...keptPer(state.p === "done" ? undefined : state.per) };
  if (state.p === "results") {
    if (arg === "next >") return { ...state, page: state.page + 1 };
    if (arg === "< prev") return { ...state, page: state.page - 1 };
    return {
      p: "item",
      q: state.q,
      page: state.page,
      hits: state.hits,
      ...keptPer(state.per),
      item: page.asins.get(arg) ?? -1,
      opts: {},
    };
  }
  if (state.p === "sub") {
    const { sub: _, ...item } = state;
    return { ...item, p: "item" };
  }
  if (state.p === "item") {
    if (arg === "< prev")
      return { p: "results", q: state.q, page: state.page, hits: state.hits, ...keptPer(state.per) };
    if (arg === "description" || arg === "features" || arg === "reviews")
      return { ...state, p: "sub", sub: arg };
    const option = page.optionOf.get(arg);
    return option === undefined ? state : { ...state, opts: { ...state.opts, [option.name]: option.value } };
  }
  return state;
}

/**
 * One WebShop text-env step: `search[query]` on any page (a non-empty query), `click[x]` for a
 * clickable of the current page other than `search`. Anything else leaves the page as it is. `ids`
 * names the results and options.
 */
export async function browse(
  command: string,
  state: PageState,
  goal: Goal,
  store: CatalogStore,
  ids: PageIds = "product",
): Promise<Result<Browsed>> {
  const action = parseAction(command.trim());
  if (action?.name === "search" && state.p !== "done") {
    const next = await searchState(action.arg, store, state.per);
    if (!next.ok) return next;
    const page = await showPage(next.value, goal, store, ids);
    return page.ok ? { ok: true, value: { state: next.value, page: page.value, valid: true } } : page;
  }
  const current = await showPage(state, goal, store, ids);
  if (!current.ok) return current;
  const unchanged: Browsed = { state, page: current.value, valid: false };
  if (action === undefined || state.p === "done") return { ok: true, value: unchanged };
  if (action.name !== "click" || action.arg === "search" || !current.value.clickables.includes(action.arg)) {
    return { ok: true, value: unchanged };
  }
  const target = clickTarget(state, action.arg, current.value);
  if (target === "buy") {
    if (state.p !== "item") return { ok: true, value: unchanged };
    const reward = await purchase(state, goal, store);
    if (!reward.ok) return reward;
    const done: PageState = { p: "done" };
    const page = renderPage(done, goal.instruction, new Map(), reward.value.total);
    return { ok: true, value: { state: done, page, reward: reward.value, valid: true } };
  }
  const page = await showPage(target, goal, store, ids);
  return page.ok ? { ok: true, value: { state: target, page: page.value, valid: true } } : page;
}
