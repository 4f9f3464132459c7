import { z } from "zod";
import { type Product, priceTag, pyFloat } from "./product.js";

/** WebShop's `PRODUCT_WINDOW`: products per results page. */
export const PRODUCT_WINDOW = 10;

const Browse = z.object({
  /** The search keywords (lowercased), as WebShop's session keeps them. */
  q: z.string(),
  /** Results page number, from 1. */
  page: z.number().int(),
  /** Product indexes the search returned, best first (at most 50): ids, never page text. */
  hits: z.array(z.number().int()),
});
const OnItem = Browse.extend({
  item: z.number().int(),
  /** Options chosen so far: option name to value. */
  opts: z.record(z.string(), z.string()),
});

/** The page the agent is on: the whole browser state sealed in the session token. */
export const PageState = z.discriminatedUnion("p", [
  z.object({ p: z.literal("start") }),
  Browse.extend({ p: z.literal("results") }),
  OnItem.extend({ p: z.literal("item") }),
  OnItem.extend({ p: z.literal("sub"), sub: z.enum(["description", "features", "reviews"]) }),
  z.object({ p: z.literal("done") }),
]);
export type PageState = z.infer<typeof PageState>;

/** What a page offers: WebShop's `get_available_actions`. */
export type Available = {
  has_search_bar: boolean;
  /** Lowercased button and link texts, then option values: what `click[...]` accepts. */
  clickables: string[];
};

/**
 * How a results page names its products: by the product's id (WebShop's asin, or a word below the top
 * level), or by its rank among the search's results, 1 first, as web agents' element ids do.
 */
export type ResultIds = "product" | "rank";

/** The id a results page shows for its `k`-th product (from 0): the product's own, or its rank in the search. */
export function resultId(state: { page: number }, k: number, product: Product, ids: ResultIds): string {
  return ids === "rank" ? String((state.page - 1) * PRODUCT_WINDOW + k + 1) : product.asin;
}

/** A rendered page: WebShop's simple text mode (visible texts joined with ` [SEP] `) and its actions. */
export type Page = Available & {
  text: string;
  /** Product index behind each clickable id (an asin or word, lowercased, or a rank) on a results page. */
  asins: Map<string, number>;
  /** Option name behind each clickable value on an item page (the last option holding it wins, as in WebShop's dict). */
  optionOf: Map<string, string>;
};

const join = (parts: readonly string[]) =>
  parts
    .map((p) => p.trim())
    .filter((p) => p !== "")
    .join(" [SEP] ");

/** Products of the current results page: hits `(page − 1)·10 … page·10 − 1`. */
export function pageHits(state: { page: number; hits: readonly number[] }): number[] {
  return state.hits.slice((state.page - 1) * PRODUCT_WINDOW, state.page * PRODUCT_WINDOW);
}

/**
 * Renders a page. `products` holds what the page shows: the current results page's products, or the
 * item. `reward` is shown on the done page; `ids` says how results are named.
 */
export function renderPage(
  state: PageState,
  instruction: string,
  products: ReadonlyMap<number, Product>,
  reward = 0,
  ids: ResultIds = "product",
): Page {
  const header = ["Instruction:", instruction, "Back to Search"];
  const empty = { asins: new Map<string, number>(), optionOf: new Map<string, string>() };
  switch (state.p) {
    case "start":
      return {
        ...empty,
        text: join(["WebShop", "Instruction:", instruction, "Search"]),
        has_search_bar: true,
        clickables: ["search"],
      };
    case "done":
      return {
        ...empty,
        text: join(["Thank you for shopping with us!", "Your score (min 0.0, max 1.0)", pyFloat(reward)]),
        has_search_bar: false,
        clickables: [],
      };
    case "results": {
      const shown = pageHits(state).flatMap((i, k) => {
        const p = products.get(i);
        return p ? [{ i, p, id: resultId(state, k, p, ids) }] : [];
      });
      const nav = state.page > 1 ? ["< Prev", "Next >"] : ["Next >"];
      const asins = new Map(shown.map(({ i, id }) => [id.toLowerCase(), i]));
      return {
        ...empty,
        asins,
        text: join([
          ...header,
          `Page ${state.page} (Total results: ${state.hits.length})`,
          ...nav,
          ...shown.flatMap(({ p, id }) => [id, p.title, priceTag(p.pricing)]),
        ]),
        has_search_bar: false,
        clickables: ["back to search", ...nav.map((n) => n.toLowerCase()), ...asins.keys()],
      };
    }
    case "item":
    case "sub": {
      const p = products.get(state.item);
      if (!p) return { ...empty, text: join(header), has_search_bar: false, clickables: ["back to search"] };
      if (state.p === "sub") {
        const body =
          state.sub === "description"
            ? [p.description]
            : state.sub === "features"
              ? p.bullets
              : p.reviews.flatMap((r) => [`"${r.title}"`, String(r.score), r.body]);
        return {
          ...empty,
          text: join([...header, "< Prev", ...body]),
          has_search_bar: false,
          clickables: ["back to search", "< prev"],
        };
      }
      const options = Object.entries(p.options);
      const optionOf = new Map(options.flatMap(([name, values]) => values.map((v) => [v, name] as const)));
      return {
        ...empty,
        optionOf,
        text: join([
          ...header,
          "< Prev",
          ...options.flatMap(([name, values]) => [name, ...values]),
          p.title,
          `Price: ${priceTag(p.pricing)}`,
          `Rating: ${p.rating}`,
          "Description",
          "Features",
          "Reviews",
          "Buy Now",
        ]),
        has_search_bar: false,
        clickables: [
          ...new Set([
            "back to search",
            "< prev",
            "description",
            "features",
            "reviews",
            "buy now",
            ...optionOf.keys(),
          ]),
        ],
      };
    }
  }
}
