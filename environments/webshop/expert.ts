import type { Result } from "../../shared/result.js";
import type { CatalogStore } from "./catalog-store.js";
import { type Goal, goalOptionValues } from "./goal.js";
import { titleNouns } from "./nouns.js";
import { optionButtons, type PageIds, type PageState, PRODUCT_WINDOW, pageHits, resultId } from "./pages.js";
import type { Product } from "./product.js";

/** Words of an instruction that name no property of the product: the templates' and joiners'. */
const STOP_WORDS = new Set(
  "a an and am are for find i i'm in is it looking me need of or some that the to want with would".split(" "),
);

/**
 * The instruction's words that describe the product: without its `with <option>: <value>` and
 * `, and price lower than …` clauses (the expert checks those apart) and without template words.
 */
export function productWords(instruction: string): string[] {
  const described = instruction
    .toLowerCase()
    .replace(/,? and price lower than [\d.]+ dollars/, "")
    .replace(/ with [\w ]+: .*$/, "");
  return [...new Set(described.match(/[\p{L}\p{N}'-]+/gu) ?? [])].filter((w) => !STOP_WORDS.has(w));
}

/** A pattern for `words` in a row, each allowing a plural or possessive `s`. */
function phrase(words: readonly string[]): RegExp {
  const stems = words.map((w) => w.replace(/'s$|s$/, "").replace(/[.*+?^${}()|[\]\\-]/g, "\\$&"));
  return new RegExp(`\\b${stems.join("\\w*\\W+")}`);
}

/** Words of a phrase, without template words. */
const wordsOf = (part: string) => (part.match(/[\p{L}\p{N}'-]+/gu) ?? []).filter((w) => !STOP_WORDS.has(w));

/**
 * The instruction's descriptive phrases, split where it lists (`,`, `and`), each with the words a
 * product's text must hold: the first two (an attribute, `sensitive skin`), or the first alone when the
 * last phrase is one word and the kind (`hypoallergenic bed sheets`). The kind itself (`face
 * moisturizer` before `that is`) is not required: a product of the kind may be named otherwise.
 */
function phrases(instruction: string): { words: string[]; required: string[] }[] {
  const described = instruction
    .toLowerCase()
    .replace(/,? and price lower than [\d.]+ dollars/, "")
    .replace(/ with [\w ]+: .*$/, "");
  const [kind, listed] = described.includes(" that is ") ? described.split(" that is ") : ["", described];
  const parts = (listed ?? "")
    .split(/,| and /)
    .map(wordsOf)
    .filter((part) => part.length > 0);
  const last = parts.length - 1;
  return [
    { words: wordsOf(kind ?? ""), required: [] },
    ...parts.map((words, k) => ({ words, required: words.slice(0, k === last && words.length > 2 ? 1 : 2) })),
  ].filter((p) => p.words.length > 0);
}

/**
 * How well a product, as its pages show it (title, price, options, description, features), fits the
 * instruction: the price must be under the bound (a range's high end under it is surer, since the price
 * charged is drawn within the range) and every option value the instruction names must be offered;
 * then the more of the instruction's word pairs (an attribute is mostly two words) and words its text
 * holds, and the more words its title holds, the better. `fits`: its whole price range under the bound, the options, and every
 * phrase of the instruction in its text.
 */
function judge(p: Product, goal: Goal, listed: readonly { words: string[]; required: string[] }[]) {
  const parts = listed.map((l) => l.words);
  const text = [p.title, p.description, ...p.bullets].join(" ").toLowerCase();
  const title = p.title.toLowerCase();
  const low = p.pricing[0] ?? 100;
  const high = p.pricing.at(-1) ?? 100;
  const offered = new Set(Object.values(p.options).flat());
  const options = goalOptionValues(goal).every((v) => offered.has(v));
  const words = [...new Set(parts.flat())];
  const pairs = parts.flatMap((part) => part.slice(1).map((w, i) => [part[i] as string, w]));
  const inPairs = pairs.filter((pair) => phrase(pair).test(text)).length;
  const inText = words.filter((w) => phrase([w]).test(text)).length;
  const inTitle = words.filter((w) => phrase([w]).test(title)).length;
  const missing = listed.filter((l) => l.required.length > 0 && !phrase(l.required).test(text)).length;
  const priced = high <= goal.priceUpper ? 2 : low <= goal.priceUpper ? 1 : 0;
  const fits = priced === 2 && options && missing === 0;
  return {
    fits,
    score: [fits ? 1 : 0, priced > 0 ? 1 : 0, options ? 1 : 0, -missing, inPairs, inText, inTitle, priced],
  };
}

/**
 * Searches an episode tries at most by default: with the first search's second page and the item's
 * clicks (four with two options) an episode takes at most 1 + 1 + 3 + 4 = 9 steps, inside the
 * recipes' 10.
 */
export const MAX_SEARCHES = 4;

const better = (a: readonly number[], b: readonly number[]) => {
  for (let i = 0; i < a.length; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return false;
};

/**
 * The searches the expert tries, in order: the instruction itself (as a level that opens on results
 * searched it), then its product words alone, then those with the option values. Kept as the
 * session keeps a query (lowercased), so the expert can tell from the page which one it is on.
 */
export function expertQueries(goal: Goal, searches = MAX_SEARCHES): string[] {
  const words = productWords(goal.instruction);
  const options = goalOptionValues(goal).map((v) => v.toLowerCase());
  // Then each with one word left out, so that a search of few results reaches other products.
  const fewer = words.map((_, k) => [...words.slice(0, k), ...words.slice(k + 1), ...options].join(" "));
  return [
    ...new Set([goal.instruction.toLowerCase(), words.join(" "), [...words, ...options].join(" "), ...fewer]),
  ]
    .filter((q) => q.trim() !== "")
    .slice(0, searches);
}

/**
 * The scripted shopper's next command, decided only from what the agent is shown: the instruction and
 * the pages (a product's description and features are a click away; it reads them without the click).
 * It searches the instruction, then, on each results page, opens the result that fits best (`judge`):
 * priced under the bound, offering every option value the instruction names, its text holding every
 * word of the instruction that describes the product. When no result on the page fits, it reads the
 * next page, and after the last page searches again with fewer words (`expertQueries`); with no search
 * left it opens the best result it has. On the item it clicks the instruction's option values and buys.
 * It never uses the goal's hidden product, so a policy can learn every command it sends. It clicks a
 * result and an option by the id `ids` gives it, and tries at most `searches` searches.
 */
export async function expertCommand(
  state: PageState,
  goal: Goal,
  store: CatalogStore,
  ids: PageIds = "product",
  searches = MAX_SEARCHES,
): Promise<Result<string>> {
  const queries = expertQueries(goal, searches);
  if (state.p === "start" || state.p === "done") return { ok: true, value: `search[${queries[0]}]` };
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

  const parts = phrases(goal.instruction);
  const hits = pageHits(state);
  const shown = await store.products(hits);
  if (!shown.ok) return shown;
  const judged = shown.value.map((h) => ({ ...h, ...judge(h.product, goal, parts) }));
  // The goal's product is one of the products that fit, and its title is not shown: WebShop scores a
  // purchase 0 when its title shares no noun with that title. So among the fitting results it prefers
  // the one whose title shares a noun with the most of the others (`typical`).
  const nouns = judged.map((j) => new Set(titleNouns(j.product.title)));
  const typical = (k: number) =>
    judged.filter((o, m) => o.fits && [...(nouns[k] ?? [])].some((n) => nouns[m]?.has(n))).length;
  let best: ((typeof judged)[number] & { score: number[] }) | undefined;
  for (const [k, j] of judged.entries()) {
    const score = [...j.score.slice(0, 5), j.fits ? typical(k) : 0, ...j.score.slice(5)];
    if (best === undefined || better(score, best.score)) best = { ...j, score };
  }
  // A second page for the first search only, so that every search and the item fit in the step limit.
  const more =
    state.page < 2 && queries.indexOf(state.q) === 0 && state.page * PRODUCT_WINDOW < state.hits.length;
  const later = queries[queries.indexOf(state.q) + 1];
  if (best?.fits !== true && more) return { ok: true, value: "click[next >]" };
  if (best?.fits !== true && later !== undefined && queries.includes(state.q))
    return { ok: true, value: `search[${later}]` };
  if (best === undefined) return { ok: true, value: `search[${later ?? queries[0]}]` };
  return {
    ok: true,
    value: `click[${resultId(state, hits.indexOf(best.index), best.product, ids)}]`,
  };
}
