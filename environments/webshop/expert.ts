import type { Result } from "../../shared/result.js";
import type { CatalogStore } from "./catalog-store.js";
import { type Goal, goalOptionValues, type Wording } from "./goal.js";
import { titleNouns } from "./nouns.js";
import { optionButtons, type PageIds, type PageState, pageHits, perPage, resultId } from "./pages.js";
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

const escaped = (w: string) => w.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&");

/** A pattern for `words` in a row, each allowing a plural or possessive `s`. */
function phrase(words: readonly string[]): RegExp {
  const stems = words.map((w) => escaped(w.replace(/'s$|s$/, "")));
  return new RegExp(`\\b${stems.join("\\w*\\W+")}`);
}

/** Words of a phrase, without template words. */
const wordsOf = (part: string) => (part.match(/[\p{L}\p{N}'-]+/gu) ?? []).filter((w) => !STOP_WORDS.has(w));

/**
 * The instruction's descriptive phrases, split where it lists (`,`, `and`), each with the words a
 * product's text must hold: the first two (an attribute, `sensitive skin`), or the first alone when the
 * last phrase is one word and the kind (`hypoallergenic bed sheets`). The kind itself (`face
 * moisturizer` before `that is`) is not required here: a product of the kind may be named otherwise
 * (where the instruction names the product's type, `typeWords` requires it in the title).
 */
function phrases(instruction: string): { words: string[]; required: string[] }[] {
  const [kind, listed] = kindAndListed(instruction);
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

/** The instruction's described part split at `that is|are`: the kind before it (or none), the rest. */
function kindAndListed(instruction: string): [string, string] {
  const described = instruction
    .toLowerCase()
    .replace(/,? and price lower than [\d.]+ dollars/, "")
    .replace(/ with [\w ]+: .*$/, "");
  const at = described.match(/ that (?:is|are) /);
  return at?.index === undefined
    ? ["", described]
    : [described.slice(0, at.index), described.slice(at.index + at[0].length)];
}

/**
 * The product's type, where the instruction names it (the `type` wording: `i need trail runners that
 * are lace up`): its words before `that is|are`, which a title must hold in a row, whole, since a title
 * sharing no noun with the goal product's scores 0 and the type is the noun the two titles share.
 */
function typeWords(instruction: string, wording: Wording): string[] | undefined {
  return wording === "type" ? wordsOf(kindAndListed(instruction)[0]) : undefined;
}

/**
 * How well a product, as its pages show it (title, price, options, description, features), fits the
 * instruction: the price must be under the bound (a range's high end under it is surer, since the price
 * charged is drawn within the range) and every option value the instruction names must be offered;
 * then the more of the instruction's word pairs (an attribute is mostly two words) and words its text
 * holds, and the more words its title holds, the better. `fits`: its whole price range under the bound,
 * the options, every phrase of the instruction in its text and the type, where the instruction names
 * one, in its title.
 */
function judge(
  p: Product,
  goal: Goal,
  listed: readonly { words: string[]; required: string[] }[],
  type: readonly string[] | undefined,
) {
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
  const typed = type === undefined || new RegExp(`\\b${type.map(escaped).join("\\W+")}\\b`).test(title);
  const fits = priced === 2 && options && missing === 0 && typed;
  return {
    fits,
    score: [fits ? 1 : 0, typed ? 1 : 0, priced > 0 ? 1 : 0, options ? 1 : 0, -missing, inPairs],
    after: [inText, inTitle, priced],
  };
}

/**
 * Searches an episode tries at most by default: with the first search's second page and the item's
 * clicks (four with two options) an episode takes at most 1 + 1 + 3 + 4 = 9 steps, inside the
 * recipes' 10. (webshop-l1 since 3.0.0, 5 results a page and 2 searches: at most 3 + 1 + 3 = 7.)
 */
export const MAX_SEARCHES = 4;

/** Results of its first search the expert reads before searching again. */
const READ_RESULTS = 20;

const better = (a: readonly number[], b: readonly number[]) => {
  for (let i = 0; i < a.length; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return false;
};

/**
 * The searches the expert tries, in order: the instruction itself (as a level that opens on results
 * searched it), then its product words alone and those with the option values (where the instruction
 * names the type, those with the option values first: the type and the option pick the products
 * better). Kept as the session keeps a query (lowercased), so the expert can tell from the page which
 * one it is on.
 */
export function expertQueries(goal: Goal, searches = MAX_SEARCHES, wording: Wording = "query"): string[] {
  const words = productWords(goal.instruction);
  const options = goalOptionValues(goal).map((v) => v.toLowerCase());
  // Then each with one word left out, so that a search of few results reaches other products.
  const fewer = words.map((_, k) => [...words.slice(0, k), ...words.slice(k + 1), ...options].join(" "));
  const alone = words.join(" ");
  const withOptions = [...words, ...options].join(" ");
  const second = wording === "type" ? [withOptions, alone] : [alone, withOptions];
  return [...new Set([goal.instruction.toLowerCase(), ...second, ...fewer])]
    .filter((q) => q.trim() !== "")
    .slice(0, searches);
}

/**
 * The scripted shopper's next command, decided only from what the agent is shown: the instruction and
 * the pages (a product's description and features are a click away; it reads them without the click).
 * It searches the instruction, then, on each results page, opens the result that fits best (`judge`):
 * priced under the bound, offering every option value the instruction names, its text holding every
 * word of the instruction that describes the product and, where the instruction names the product's
 * type (`wording` `type`), that type in its title. When no result on the page fits, it reads the next
 * page (up to the first search's 20th result), then searches again with other words (`expertQueries`);
 * with no search left it opens the best result it has. On the item it clicks the instruction's option values and buys.
 * It never uses the goal's hidden product, so a policy can learn every command it sends. It clicks a
 * result and an option by the id `ids` gives it, and tries at most `searches` searches.
 */
export async function expertCommand(
  state: PageState,
  goal: Goal,
  store: CatalogStore,
  ids: PageIds = "product",
  searches = MAX_SEARCHES,
  wording: Wording = "query",
): Promise<Result<string>> {
  const queries = expertQueries(goal, searches, wording);
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
  const type = typeWords(goal.instruction, wording);
  const judged = shown.value.map((h) => ({ ...h, ...judge(h.product, goal, parts, type) }));
  // The goal's product is one of the products that fit, and its title is not shown: WebShop scores a
  // purchase 0 when its title shares no noun with that title. So among the fitting results it prefers
  // the one whose title shares a noun with the most of the others (`typical`).
  const nouns = judged.map((j) => new Set(titleNouns(j.product.title)));
  const typical = (k: number) =>
    judged.filter((o, m) => o.fits && [...(nouns[k] ?? [])].some((n) => nouns[m]?.has(n))).length;
  let best: ((typeof judged)[number] & { score: number[] }) | undefined;
  for (const [k, j] of judged.entries()) {
    const score = [...j.score, j.fits ? typical(k) : 0, ...j.after];
    if (best === undefined || better(score, best.score)) best = { ...j, score };
  }
  // Further pages for the first search only, up to its 20th result (two of WebShop's pages, four of 5),
  // so that every search and the item fit in the step limit.
  const read = Math.min(state.hits.length, READ_RESULTS);
  const more = queries.indexOf(state.q) === 0 && state.page * perPage(state) < read;
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
