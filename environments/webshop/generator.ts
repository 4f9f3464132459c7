import { hashString, type Rng, rng } from "../../shared/random.js";
import { syllableWord } from "../kit/syllable-word.js";
import { ADJECTIVES, BRANDS, KINDS, type Kind } from "./catalog-data.js";
import { type Annotation, type Goal, optionCombinations, syntheticGoals, type Wording } from "./goal.js";
import type { PageIds } from "./pages.js";
import { fixedPrice, type Product } from "./product.js";

/** Identity of the generator: part of the built-in catalog's hash and the env's content hash. */
export const GENERATOR_VERSION = "webshop-builtin/1";

/** Goals per split of the built-in task source; test goals come from a disjoint tenth of the products. */
export const BUILTIN_SPLITS = { train: 10_000, test: 1_000 } as const;

/**
 * Below the top level there is also `validation`, for choosing settings and checkpoints without playing
 * test: goals on another disjoint tenth of the products (train keeps the other eight tenths).
 */
export const LEVEL_SPLITS = { ...BUILTIN_SPLITS, validation: 1_000 } as const;

/** The built-in splits and their goal counts at `level`. */
export function builtinSplits(level: number): Readonly<Record<string, number>> {
  return level >= WEBSHOP_LEVELS ? BUILTIN_SPLITS : LEVEL_SPLITS;
}

/** `count` distinct values of `items`, in their original order. */
function sample<T>(r: Rng, items: readonly T[], count: number): T[] {
  const picked = new Set<number>();
  while (picked.size < Math.min(count, items.length)) picked.add(r.int(0, items.length - 1));
  return [...picked].sort((a, b) => a - b).map((i) => items[i] as T);
}

const ASIN_CHARS = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789";

function asinOf(index: number): string {
  const r = rng(hashString(`asin/${index}`));
  let s = "B0";
  for (let i = 0; i < 4; i++) s += ASIN_CHARS[r.int(0, ASIN_CHARS.length - 1)];
  // Ten characters like an Amazon asin; the index in the last four keeps them unique (up to 36^4 products).
  return s + index.toString(36).toUpperCase().padStart(4, "0").slice(-4);
}

/** Word ids drawn so far, by product index: each depends only on the ones before it. */
const WORD_IDS: string[] = [];
const usedWordIds = new Set<string>();

/**
 * Product `index`'s id below the top level: a made-up word ("Drailoth") in place of the asin. A
 * byte-level policy copies words out of a page as it copies names out of a passage, while the asin's
 * random capitals and digits are copied by none of the small policies (docs/environments.md).
 * Unique without regard to case, as a click is read; the same for a product in every catalog size.
 */
export function wordIdOf(index: number): string {
  while (WORD_IDS.length <= index) {
    const r = rng(hashString(`word-id/${WORD_IDS.length}`));
    let id = syllableWord(r, 2);
    while (usedWordIds.has(id.toLowerCase())) id = syllableWord(r, 2);
    usedWordIds.add(id.toLowerCase());
    WORD_IDS.push(id);
  }
  return WORD_IDS[index] as string;
}

const cap = (s: string) => s.replace(/\b\w/g, (c) => c.toUpperCase());

function product(index: number, seed: number): Product {
  const r = rng(hashString(`product/${seed}`) ^ Math.imul(index + 1, 0x9e3779b1));
  const kind = KINDS[index % KINDS.length] as Kind;
  const brand = r.pick(BRANDS);
  const noun = r.pick(kind.nouns);
  const attributes = sample(r, kind.attributes, r.int(2, 4));
  const headline = attributes[0] as string;
  const title = `${brand} ${r.pick(ADJECTIVES)} ${cap(headline)} ${noun}${r.next() < 0.5 ? ` ${r.int(2, 9)}00 Series` : ""}`;
  const options = Object.fromEntries(
    Object.entries(kind.options)
      .filter(() => r.next() < 0.85)
      .map(([name, values]) => [name, sample(r, values, r.int(2, Math.min(5, values.length)))]),
  );
  const [lo, hi] = kind.price;
  const base = Math.round((lo + r.next() * (hi - lo)) * 100) / 100;
  const pricing = r.next() < 0.25 ? [base, Math.round(base * (1.2 + r.next()) * 100) / 100] : [base];
  const asin = asinOf(index);
  return {
    asin,
    title,
    category: kind.category,
    query: kind.query,
    productCategory: kind.crumbs,
    description: `${brand} ${noun.toLowerCase()} made for everyday use. ${attributes.map(cap).join(". ")}.`,
    bullets: attributes.map((a) => `${cap(a)}: ${brand} quality you can rely on`),
    pricing,
    price: fixedPrice(asin, pricing),
    options,
    attributes,
    reviews: [],
    rating: "N.A.",
  };
}

const catalogs = new Map<string, Product[]>();

/**
 * Difficulty levels, easiest first: 1: 3,000 products (300 before 2.0.0, whose test tenth held only 30),
 * each with at most one option, the episode opening
 * on the results of a search for the instruction, its best 5 numbered 1 to 5 (one page), an item's
 * option values in an order drawn per instruction (since 1.6.0), each clicked as the instruction writes
 * it, `size: small` (since 1.7.0; lettered a, b, … at 1.5.0 and 1.6.0); 2:
 * 1,000 products, at most one option, a search showing its best 10 (one page); 3: 1,000 products
 * with all their options and WebShop's 50 results over 5 pages (the `webshop` env's tasks since
 * webshop-builtin/1). Levels below the top keep every draw of the top level's products and drop the
 * options after the first, so the top level is exactly as before levels existed.
 */
export const WEBSHOP_LEVELS = 3;

/** What a level below the top changes. */
export type WebshopLevel = {
  /** Products in the catalog. */
  size: number;
  /** Options a product keeps, its first ones. */
  maxOptions: number;
  /** Results a search shows. */
  results: number;
  /** Results a page shows, where not WebShop's 10 (more are a `next >` away). */
  perPage?: number;
  /** How a page names its results and option values (`renderPage`). */
  ids: PageIds;
  /** Whether an episode opens on the results of a search for the instruction, not on the search page. */
  opensOnResults: boolean;
};

/** Each level below the top. */
export const WEBSHOP_LEVEL_CATALOG: Record<number, WebshopLevel> = {
  1: { size: 3000, maxOptions: 1, results: 5, ids: "named", opensOnResults: true },
  2: { size: 1000, maxOptions: 1, results: 10, ids: "product", opensOnResults: false },
};

/** How a catalog names its products: WebShop's asins, or made-up words ({@link wordIdOf}). */
export type ProductIds = "asin" | "word";

/**
 * The built-in catalog of `size` products: deterministic, cached per size, seed, `maxOptions` (the
 * options a product keeps, its first ones; all by default) and `ids`. Word ids change nothing else:
 * prices and instructions are still drawn from the asin.
 */
export function builtinCatalog(
  size: number,
  seed = 0,
  maxOptions = Number.POSITIVE_INFINITY,
  ids: ProductIds = "asin",
): Product[] {
  const key = `${size}/${seed}/${maxOptions}/${ids}`;
  let products = catalogs.get(key);
  if (!products) {
    products = Array.from({ length: size }, (_, i) => {
      const p = product(i, seed);
      const options = Object.entries(p.options);
      const kept =
        options.length <= maxOptions
          ? p
          : { ...p, options: Object.fromEntries(options.slice(0, maxOptions)) };
      return ids === "word" ? { ...kept, asin: wordIdOf(i) } : kept;
    });
    catalogs.set(key, products);
  }
  return products;
}

const TEMPLATES = [
  (attrs: string, query: string) => `Find me ${attrs} ${query}`,
  (attrs: string, query: string) => `i need ${query} that is ${attrs}`,
  (attrs: string, query: string) => `i am looking for ${attrs} ${query}`,
];

/** The `type` wording's templates: the product's type first, then its attributes after `that is|are`. */
const TYPE_TEMPLATES = [
  (attrs: string, type: string) => `Find me ${type} that ${be(type)} ${attrs}`,
  (attrs: string, type: string) => `i need ${type} that ${be(type)} ${attrs}`,
  (attrs: string, type: string) => `i am looking for ${type} that ${be(type)} ${attrs}`,
];
const be = (type: string) => (/[^s]s$/.test(type) ? "are" : "is");

/**
 * Product `index`'s type: the noun its title was made with (`Trail Runners`, one of its kind's nouns;
 * the longest that the title holds, since `Sheets` is also in `Microfiber Sheets`).
 */
export function typeOf(p: Product, index: number): string {
  const kind = KINDS[index % KINDS.length] as Kind;
  const held = kind.nouns.filter((n) => p.title.includes(n));
  return held.reduce((a, b) => (b.length > a.length ? b : a), "");
}

/**
 * The product's synthetic instruction, as WebShop's `items_ins_v2` annotates one: 1–3 of its attributes,
 * drawn from `seedId` (the asin the product was generated with, whatever id the catalog shows). With
 * `type` it names the product by its type (lowercased), as people's WebShop instructions do, instead of
 * by its kind's query; the draws are the same, so only the instruction's words differ.
 */
export function builtinAnnotation(p: Product, seedId: string, type?: string): Annotation {
  const r = rng(hashString(`annotation/${seedId}`));
  const attrs = sample(r, p.attributes, r.int(1, Math.min(3, p.attributes.length)));
  const joined = attrs.length === 1 ? attrs[0] : `${attrs.slice(0, -1).join(", ")} and ${attrs.at(-1)}`;
  const template = r.pick(type === undefined ? TEMPLATES : TYPE_TEMPLATES);
  return {
    asin: p.asin,
    attributes: p.attributes,
    instruction: template(joined ?? "", type?.toLowerCase() ?? p.query),
    instructionAttributes: attrs,
  };
}

/**
 * Products of a split: every tenth product (index ≡ 0 mod 10) is held out for `test`; below the top level
 * the tenth at index ≡ 5 is `validation`'s, so train, validation and test share no product.
 */
function inSplit(index: number, split: string, level: number): boolean {
  const tenth = index % 10;
  if (split === "test") return tenth === 0;
  if (level >= WEBSHOP_LEVELS) return tenth !== 0;
  return split === "validation" ? tenth === 5 : tenth !== 0 && tenth !== 5;
}

/**
 * Goal `index` of `split`: a product of the split, one of its option combinations and its price bound,
 * exactly as WebShop's synthetic goal generation makes them, with every draw seeded by split, index and
 * (below the top) level. `wording` says how the instruction names the product (`Wording`).
 */
export function builtinGoal(
  catalog: readonly Product[],
  split: string,
  index: number,
  level: number = WEBSHOP_LEVELS,
  wording: Wording = "query",
): Goal {
  const seed = level >= WEBSHOP_LEVELS ? `webshop/${split}` : `webshop/l${level}/${split}`;
  const r = rng(hashString(seed) ^ Math.imul(index + 1, 0x85ebca6b));
  let at = r.int(0, catalog.length - 1);
  // The top level gives up after 64 draws, so about 1 in 800 of its test goals (test 518 and 782 of
  // 1,000) is on a train product; it is kept so its tasks stay as published. Lower levels draw until
  // the product is in the split, so their splits are disjoint.
  const tries = level >= WEBSHOP_LEVELS ? 64 : Number.POSITIVE_INFINITY;
  for (let i = 0; !inSplit(at, split, level) && i < tries; i++) at = r.int(0, catalog.length - 1);
  const p = catalog[at] as Product;
  const type = wording === "type" ? typeOf(p, at) : undefined;
  const goals = syntheticGoals(p, builtinAnnotation(p, asinOf(at), type), r);
  const combos = optionCombinations(p.options).length;
  return goals[r.int(0, combos - 1)] as Goal;
}
