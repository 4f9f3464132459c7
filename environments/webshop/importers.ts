import { z } from "zod";
import type { Result } from "../../shared/result.js";
import type { ImportedDataset } from "../data/datasets.js";
import type { Annotation, HumanInstruction } from "./goal.js";
import { fixedPrice, type Product, Review } from "./product.js";

/**
 * A WebShop product record in either layout: the raw scrape (`items_shuffle*.json`: `name`,
 * `full_description`, `small_description`, `pricing` as `"$a$b"`, `customization_options`) or the
 * processed one inside `documents.jsonl` (`Title`, `Description`, `BulletPoints`, `pricing` as
 * numbers, `options`, `Attributes`). Processed fields win when both are present.
 */
const RawItem = z.looseObject({
  asin: z.string().optional(),
  name: z.string().optional(),
  Title: z.string().optional(),
  full_description: z.string().nullish(),
  Description: z.string().nullish(),
  small_description: z.union([z.string(), z.array(z.string())]).nullish(),
  BulletPoints: z.array(z.string()).optional(),
  pricing: z.union([z.string(), z.array(z.number())]).nullish(),
  customization_options: z
    .union([z.literal(""), z.record(z.string(), z.array(z.looseObject({ value: z.string() })).nullable())])
    .nullish(),
  options: z.record(z.string(), z.array(z.string())).optional(),
  Attributes: z.array(z.string()).optional(),
  product_category: z.string().nullish(),
  category: z.string().nullish(),
  query: z.string().nullish(),
  Reviews: z.array(z.unknown()).optional(),
  /** Human instructions carried inside a product (`items_human_ins` merged in). */
  instructions: z.array(z.unknown()).optional(),
});
type RawItem = z.infer<typeof RawItem>;

/** `load_products`' pricing: every `$`-separated amount (non-digits dropped), the first two kept. */
function pricingOf(raw: RawItem["pricing"]): number[] {
  if (Array.isArray(raw)) return raw.slice(0, 2);
  if (!raw) return [];
  return raw
    .split("$")
    .slice(1)
    .map((s) => Number.parseFloat(s.replace(/[^\d.]/g, "")))
    .filter((n) => Number.isFinite(n))
    .slice(0, 2);
}

/** `load_products`' options: names lowercased, values trimmed, lowercased, `/` shown as ` | `. */
function optionsOf(item: RawItem): Record<string, string[]> {
  if (item.options) return item.options;
  const custom = item.customization_options;
  if (!custom) return {};
  const out: Record<string, string[]> = {};
  for (const [name, contents] of Object.entries(custom)) {
    if (contents === null) continue;
    out[name.toLowerCase()] = contents.map((c) => c.value.trim().replaceAll("/", " | ").toLowerCase());
  }
  return out;
}

function toProduct(item: RawItem, fallbackAsin: string | undefined): Product | undefined {
  const asin = item.asin ?? fallbackAsin;
  // WebShop skips these asins (`asin == 'nan' or len(asin) > 10`).
  if (asin === undefined || asin === "nan" || asin.length > 10) return undefined;
  const small = item.small_description;
  const pricing = pricingOf(item.pricing);
  return {
    asin,
    title: item.Title ?? item.name ?? "",
    category: item.category ?? "",
    query: (item.query ?? "").toLowerCase().trim(),
    productCategory: item.product_category ?? "",
    description: item.Description ?? item.full_description ?? "",
    bullets: item.BulletPoints ?? (Array.isArray(small) ? small : [small ?? ""]),
    pricing: pricing.length === 0 ? [100] : pricing,
    price: fixedPrice(asin, pricing),
    options: optionsOf(item),
    attributes: item.Attributes ?? ["DUMMY_ATTR"],
    reviews: (item.Reviews ?? []).flatMap((r) => {
      const parsed = Review.safeParse(r);
      return parsed.success ? [parsed.data] : [];
    }),
    rating: "N.A.",
  };
}

/** The records of a JSON array (items_shuffle) or of JSON lines (documents.jsonl). */
function records(text: string): Result<unknown[]> {
  const trimmed = text.trim();
  try {
    if (trimmed.startsWith("[")) {
      const all: unknown = JSON.parse(trimmed);
      return Array.isArray(all) ? { ok: true, value: all } : { ok: false, error: "expected a JSON array" };
    }
    return { ok: true, value: trimmed.split("\n").flatMap((l) => (l.trim() === "" ? [] : [JSON.parse(l)])) };
  } catch (e) {
    return { ok: false, error: `not JSON or JSON lines: ${(e as Error).message}` };
  }
}

/**
 * `npm run data -- import webshop <file>`: WebShop products, from `documents.jsonl`
 * (`{id, contents, product{...}}` per line) or the raw `items_shuffle` JSON array. Duplicate and
 * over-long asins are skipped, as WebShop's loader does. Saved as split `products` of dataset `webshop`.
 */
export function importWebshopProducts(text: string): Result<ImportedDataset> {
  const all = records(text);
  if (!all.ok) return all;
  const seen = new Set<string>();
  const products: Product[] = [];
  const human: HumanInstruction[] = [];
  for (const [i, rec] of all.value.entries()) {
    const doc = z.looseObject({ id: z.string(), product: z.unknown() }).safeParse(rec);
    const item = RawItem.safeParse(doc.success ? doc.data.product : rec);
    if (!item.success)
      return { ok: false, error: `record ${i + 1} is not a WebShop product: ${item.error.message}` };
    const p = toProduct(item.data, doc.success ? doc.data.id : undefined);
    if (p === undefined || seen.has(p.asin)) continue;
    seen.add(p.asin);
    products.push(p);
    human.push(...humanInstructions(p.asin, item.data.instructions ?? []));
  }
  if (products.length === 0) return { ok: false, error: "no WebShop products found" };
  return {
    ok: true,
    value: {
      name: "webshop",
      tasks: [
        ...products.map((payload) => ({ split: "products", payload })),
        ...human.map((payload) => ({ split: "human", payload })),
      ],
    },
  };
}

const RawHuman = z.looseObject({
  instruction: z.string(),
  instruction_attributes: z.array(z.string()).default([]),
  instruction_options: z.array(z.string()).default([]),
});

/** The well-formed human instructions of one product (malformed ones are skipped). */
function humanInstructions(asin: string, records: readonly unknown[]): HumanInstruction[] {
  return records.flatMap((rec) => {
    const h = RawHuman.safeParse(rec);
    if (!h.success) return [];
    return [
      {
        asin,
        instruction: h.data.instruction,
        instructionAttributes: h.data.instruction_attributes,
        instructionOptions: h.data.instruction_options,
      },
    ];
  });
}

/**
 * `npm run data -- import webshop-human-goals items_human_ins.json`: WebShop's human instructions
 * (`{asin: [{instruction, instruction_attributes, instruction_options, ...}]}`), saved as split
 * `human` of dataset `webshop` (`webshop-real-human` makes its goals from them).
 */
export function importWebshopHumanInstructions(text: string): Result<ImportedDataset> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `not JSON: ${(e as Error).message}` };
  }
  const parsed = z.record(z.string(), z.array(z.unknown())).safeParse(json);
  if (!parsed.success) return { ok: false, error: `not an items_human_ins object: ${parsed.error.message}` };
  const human = Object.entries(parsed.data).flatMap(([asin, records]) => humanInstructions(asin, records));
  if (human.length === 0) return { ok: false, error: "no human instructions found" };
  return {
    ok: true,
    value: { name: "webshop", tasks: human.map((payload) => ({ split: "human", payload })) },
  };
}

const RawAnnotations = z.record(
  z.string(),
  z.looseObject({
    attributes: z.array(z.string()).default([]),
    instruction: z.string().optional(),
    instruction_attributes: z.array(z.string()).optional(),
  }),
);

/**
 * `npm run data -- import webshop-goals items_ins_v2.json`: WebShop's attribute annotations
 * (`{asin: {attributes, instruction, instruction_attributes}}`), saved as split `annotations` of
 * dataset `webshop`. Goals are made from them and the products when `webshop-real` first runs.
 */
export function importWebshopAnnotations(text: string): Result<ImportedDataset> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `not JSON: ${(e as Error).message}` };
  }
  const parsed = RawAnnotations.safeParse(json);
  if (!parsed.success) return { ok: false, error: `not an items_ins_v2 object: ${parsed.error.message}` };
  const annotations: Annotation[] = Object.entries(parsed.data).map(([asin, a]) => ({
    asin,
    attributes: a.attributes,
    ...(a.instruction === undefined ? {} : { instruction: a.instruction }),
    ...(a.instruction_attributes === undefined ? {} : { instructionAttributes: a.instruction_attributes }),
  }));
  if (annotations.length === 0) return { ok: false, error: "no annotations found" };
  return {
    ok: true,
    value: { name: "webshop", tasks: annotations.map((payload) => ({ split: "annotations", payload })) },
  };
}
