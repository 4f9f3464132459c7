import { hashString, type Rng, rng } from "../../shared/random.js";
import { ADJECTIVES, BRANDS, KINDS, type Kind } from "./catalog-data.js";
import { type Annotation, type Goal, optionCombinations, syntheticGoals } from "./goal.js";
import { fixedPrice, type Product } from "./product.js";

/** Identity of the generator: part of the built-in catalog's hash and the env's content hash. */
export const GENERATOR_VERSION = "webshop-builtin/1";

/** Goals per split of the built-in task source; test goals come from a disjoint tenth of the products. */
export const BUILTIN_SPLITS = { train: 10_000, test: 1_000 } as const;

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

/** The built-in catalog of `size` products: deterministic, cached per size and seed. */
export function builtinCatalog(size: number, seed = 0): Product[] {
  const key = `${size}/${seed}`;
  let products = catalogs.get(key);
  if (!products) {
    products = Array.from({ length: size }, (_, i) => product(i, seed));
    catalogs.set(key, products);
  }
  return products;
}

const TEMPLATES = [
  (attrs: string, query: string) => `Find me ${attrs} ${query}`,
  (attrs: string, query: string) => `i need ${query} that is ${attrs}`,
  (attrs: string, query: string) => `i am looking for ${attrs} ${query}`,
];

/** The product's synthetic instruction, as WebShop's `items_ins_v2` annotates one: 1–3 of its attributes. */
export function builtinAnnotation(p: Product): Annotation {
  const r = rng(hashString(`annotation/${p.asin}`));
  const attrs = sample(r, p.attributes, r.int(1, Math.min(3, p.attributes.length)));
  const joined = attrs.length === 1 ? attrs[0] : `${attrs.slice(0, -1).join(", ")} and ${attrs.at(-1)}`;
  return {
    asin: p.asin,
    attributes: p.attributes,
    instruction: r.pick(TEMPLATES)(joined ?? "", p.query),
    instructionAttributes: attrs,
  };
}

/** Products of a split: every tenth product is held out for `test`. */
function inSplit(index: number, split: string): boolean {
  return (index % 10 === 0) === (split === "test");
}

/**
 * Goal `index` of `split`: a product of the split, one of its option combinations and its price bound,
 * exactly as WebShop's synthetic goal generation makes them, with every draw seeded by split and index.
 */
export function builtinGoal(catalog: readonly Product[], split: string, index: number): Goal {
  const r = rng(hashString(`webshop/${split}`) ^ Math.imul(index + 1, 0x85ebca6b));
  let at = r.int(0, catalog.length - 1);
  for (let i = 0; !inSplit(at, split) && i < 64; i++) at = r.int(0, catalog.length - 1);
  const p = catalog[at] as Product;
  const goals = syntheticGoals(p, builtinAnnotation(p), r);
  const combos = optionCombinations(p.options).length;
  return goals[r.int(0, combos - 1)] as Goal;
}
