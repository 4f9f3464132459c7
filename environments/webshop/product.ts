import { z } from "zod";
import { hashString, rng } from "../../shared/random.js";

/** A review as WebShop's review page shows it (WebShop itself ships none: its review loading is off). */
export const Review = z.object({ title: z.string(), score: z.number(), body: z.string() });

/**
 * A product in WebShop's processed form (`load_products`): the fields its pages show and its reward
 * reads. Option names and values are lowercased, `/` in values shown as ` | `, as WebShop does.
 */
export const Product = z.object({
  asin: z.string(),
  /** `Title` (= the raw `name`): shown on pages, parsed for nouns by the type reward. */
  title: z.string(),
  /** WebShop's coarse category (`beauty`, `food`, ...). */
  category: z.string(),
  /** The search query the product was scraped under; the type reward compares it. */
  query: z.string(),
  /** Amazon's breadcrumb, `A › B › C`. */
  productCategory: z.string(),
  description: z.string(),
  bullets: z.array(z.string()),
  /** One price, or the low and high ends of a range. */
  pricing: z.array(z.number()),
  /** The fixed price the reward compares with `price_upper` (WebShop draws one in a range at load). */
  price: z.number(),
  /** Option name to its values, in page order. */
  options: z.record(z.string(), z.array(z.string())),
  /** Attribute phrases (WebShop's `Attributes`, from its attribute annotations; `DUMMY_ATTR` when none). */
  attributes: z.array(z.string()),
  reviews: z.array(Review).default([]),
  rating: z.string().default("N.A."),
});
export type Product = z.infer<typeof Product>;

/** `$x`, or `$lo to $hi` for a range: the `Price` WebShop renders (Python's float repr, e.g. `$100.0`). */
export function priceTag(pricing: readonly number[]): string {
  const [lo, hi] = pricing;
  if (lo === undefined) return "$100.0";
  return hi === undefined ? `$${pyFloat(lo)}` : `$${pyFloat(lo)} to $${pyFloat(hi)}`;
}

/** A number as Python's `str(float)` prints it: always with a decimal point (`100.0`, `19.99`). */
export function pyFloat(n: number): string {
  return Number.isInteger(n) ? n.toFixed(1) : String(n);
}

/**
 * The price the reward uses: the single price, or a seeded draw in `[lo, hi]` (WebShop's
 * `generate_product_prices` draws with `random.uniform` unseeded; here the draw is seeded by the asin
 * so it is reproducible). Missing pricing is $100, as in WebShop.
 */
export function fixedPrice(asin: string, pricing: readonly number[]): number {
  const [lo, hi] = pricing;
  if (lo === undefined) return 100;
  if (hi === undefined) return lo;
  const u = rng(hashString(`price/${asin}`)).next();
  return Math.round((lo + u * (hi - lo)) * 100) / 100;
}

/**
 * The text the search index holds for a product, as WebShop's `convert_product_file_format.py` builds
 * it: title, description, first bullet point and `name: v1, v2, and name: ...`, joined and lowercased.
 */
export function searchText(p: Product): string {
  const options = Object.entries(p.options)
    .map(([name, values]) => `${name}: ${values.join(", ")}`)
    .join(", and ");
  return [p.title, p.description, p.bullets[0] ?? "", options].join(" ").toLowerCase();
}
