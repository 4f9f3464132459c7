import { z } from "zod";
import { hashString, rng } from "../../shared/random.js";
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
  per: z.number().int().positive().optional(),
});
const OnItem = Browse.extend({
  item: z.number().int(),
  /** Options chosen so far: option name to value. */
  opts: z.record(z.string(), z.string()),
});

/** The page the agent is on: the whole browser state sealed in the session token. */
export const PageState = z.discriminatedUnion("p", [
  z.object({ p: z.literal("start"), per: z.number().int().positive().optional() }),
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
 * How a page names what it lists, as `click[...]` takes it. `product`: WebShop's own names, a result by
 * its product's id (an asin, or a word below the top level) and an option by its value. `rank`: by
 * position, as web agents' element ids do: results by their rank in the search, 1 first, and an item's
 * option values by letters, a first. `shuffled`: as `rank`, with each option's values in an order drawn
 * from the instruction and the product, so that which letter holds a value must be read off the page:
 * in the product's own order a policy learned a small catalog's letters by heart instead. `named`:
 * results by rank, and an option value listed as WebShop lists it (in `shuffled`'s order) and clicked
 * as the instruction writes it, `<option>: <value>` (`size: small`), which a policy copies.
 */
export type PageIds = "product" | "rank" | "shuffled" | "named";

const byPosition = (ids: PageIds) => ids !== "product";
const lettered = (ids: PageIds) => ids === "rank" || ids === "shuffled";

/** An option value's id: its letter, its name and value as an instruction writes them, or the value. */
function optionId(ids: PageIds, k: number, o: { name: string; value: string }): string {
  if (lettered(ids)) return letters(k);
  return ids === "named" ? `${o.name}: ${o.value}`.toLowerCase() : o.value;
}

/**
 * Results a page shows: a state's `per` (kept from the episode's start, where a level pages its results
 * in fewer), else WebShop's 10.
 */
export function perPage(state: { per?: number | undefined }): number {
  return state.per ?? PRODUCT_WINDOW;
}

/** The id a results page shows for its `k`-th product (from 0): the product's own, or its rank in the search. */
export function resultId(
  state: { page: number; per?: number | undefined },
  k: number,
  product: Product,
  ids: PageIds,
): string {
  return byPosition(ids) ? String((state.page - 1) * perPage(state) + k + 1) : product.asin;
}

/** `items` in a seeded order (Fisher–Yates). */
function seededOrder<T>(items: readonly T[], seed: string): T[] {
  const r = rng(hashString(seed));
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** Letters for a position from 0: a … z, then aa, ab, … (bijective base 26), so no two positions share one. */
function letters(k: number): string {
  const head = Math.floor(k / 26);
  return (head > 0 ? letters(head - 1) : "") + String.fromCharCode(97 + (k % 26));
}

/** One option value on an item page: the id that clicks it, and the option it sets. */
export type OptionButton = { id: string; name: string; value: string };

/**
 * An item page's option values in page order, each with its id ({@link PageIds}). `instruction` seeds
 * the order of `shuffled` and `named` pages.
 */
export function optionButtons(product: Product, ids: PageIds, instruction: string): OptionButton[] {
  return Object.entries(product.options)
    .flatMap(([name, values]) =>
      (ids === "shuffled" || ids === "named"
        ? seededOrder(values, `${product.asin}/${instruction}`)
        : values
      ).map((value) => ({
        name,
        value,
      })),
    )
    .map((o, k) => ({ ...o, id: optionId(ids, k, o) }));
}

/** A rendered page: WebShop's simple text mode (visible texts joined with ` [SEP] `) and its actions. */
export type Page = Available & {
  text: string;
  /** Product index behind each clickable id (an asin or word, lowercased, or a rank) on a results page. */
  asins: Map<string, number>;
  /**
   * Option value behind each clickable option id on an item page (the last holding an id wins, as in
   * WebShop's dict).
   */
  optionOf: Map<string, OptionButton>;
};

const join = (parts: readonly string[]) =>
  parts
    .map((p) => p.trim())
    .filter((p) => p !== "")
    .join(" [SEP] ");

/** Products of the current results page: hits `(page − 1)·per … page·per − 1` ({@link perPage}). */
export function pageHits(state: {
  page: number;
  hits: readonly number[];
  per?: number | undefined;
}): number[] {
  return state.hits.slice((state.page - 1) * perPage(state), state.page * perPage(state));
}

/**
 * Renders a page. `products` holds what the page shows: the current results page's products, or the
 * item. `reward` is shown on the done page; `ids` says how results and option values are named.
 */
export function renderPage(
  state: PageState,
  instruction: string,
  products: ReadonlyMap<number, Product>,
  reward = 0,
  ids: PageIds = "product",
): Page {
  const header = ["Instruction:", instruction, "Back to Search"];
  const empty = { asins: new Map<string, number>(), optionOf: new Map<string, OptionButton>() };
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
      const buttons = optionButtons(p, ids, instruction);
      const optionOf = new Map(buttons.map((b) => [b.id, b]));
      return {
        ...empty,
        optionOf,
        text: join([
          ...header,
          "< Prev",
          ...Object.keys(p.options).flatMap((name) => [
            name,
            ...buttons
              .filter((b) => b.name === name)
              .flatMap((b) => (lettered(ids) ? [b.id, b.value] : [b.value])),
          ]),
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
