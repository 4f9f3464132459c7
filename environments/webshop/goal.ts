import { z } from "zod";
import type { Rng } from "../../shared/random.js";
import type { Product } from "./product.js";

/** A WebShop goal (`get_synthetic_goals` / `get_human_goals`): the target and what the reward checks. */
export const Goal = z.object({
  /** The product the goal was made from; any product that satisfies the goal scores as well. */
  asin: z.string(),
  query: z.string(),
  category: z.string(),
  /** The target's title: its nouns are what the type reward compares. */
  name: z.string(),
  productCategory: z.string(),
  /** The instruction shown to the agent. */
  instruction: z.string(),
  attributes: z.array(z.string()),
  priceUpper: z.number(),
  /** Synthetic goals: option name to value. Human goals: a list of option texts. */
  goalOptions: z.union([z.record(z.string(), z.string()), z.array(z.string())]),
});
export type Goal = z.infer<typeof Goal>;

/**
 * How a built-in goal's instruction names its product: `query`, by the query its kind was "scraped"
 * under (`men's running shoes`), which never says which of the kind's types the goal's product is, so a
 * product of another type can score 0 (its title shares no noun with the goal's); `type`, by the type
 * noun in the product's title (`trail runners that are lace up`), so the pages tell which products fit.
 */
export type Wording = "query" | "type";

/** WebShop's attribute annotation of a product (`items_ins_v2.json`): its synthetic instruction. */
export const Annotation = z.object({
  asin: z.string(),
  attributes: z.array(z.string()),
  instruction: z.string().optional(),
  instructionAttributes: z.array(z.string()).optional(),
});
export type Annotation = z.infer<typeof Annotation>;

/** A human-written instruction for a product (`items_human_ins.json`, or `instructions` inside a product). */
export const HumanInstruction = z.object({
  asin: z.string(),
  instruction: z.string(),
  instructionAttributes: z.array(z.string()),
  instructionOptions: z.array(z.string()),
});
export type HumanInstruction = z.infer<typeof HumanInstruction>;

/** WebShop's `PRICE_RANGE`: $10, $20, ... $990. */
const PRICE_RANGE = Array.from({ length: 99 }, (_, i) => 10 * (i + 1));
/** `price_upper` when no bound is drawn (the price is $990 or more). */
export const NO_PRICE_BOUND = 1_000_000;

/**
 * WebShop's price bound: take the first four of $10…$990 above the price, draw two and keep the larger
 * (`sorted(random.sample(range, 2))[1]`), with the instruction's `, and price lower than X dollars`.
 * Fewer than two candidates: no bound and no text. Seeded, where WebShop's draw is not.
 */
export function priceUpper(price: number, r: Rng): { priceUpper: number; text: string } {
  const candidates = PRICE_RANGE.filter((p) => p > price).slice(0, 4);
  if (candidates.length < 2) return { priceUpper: NO_PRICE_BOUND, text: "" };
  const first = r.int(0, candidates.length - 1);
  let second = r.int(0, candidates.length - 2);
  if (second >= first) second++;
  const upper = Math.max(candidates[first] as number, candidates[second] as number);
  return { priceUpper: upper, text: `, and price lower than ${upper.toFixed(2)} dollars` };
}

/** Every combination of one value per option, option names sorted (`itertools.product` order). */
export function optionCombinations(options: Record<string, string[]>): Record<string, string>[] {
  const names = Object.keys(options).sort();
  let combos: Record<string, string>[] = [{}];
  for (const name of names) {
    combos = combos.flatMap((c) => (options[name] ?? []).map((v) => ({ ...c, [name]: v })));
  }
  return combos;
}

/** `with k: v, and k: v` for a goal's options, empty when there are none. */
function optionText(goalOptions: Record<string, string>): string {
  const parts = Object.entries(goalOptions).map(([k, v]) => `${k}: ${v}`);
  return parts.length === 0 ? "" : ` with ${parts.join(", and ")}`;
}

/**
 * `get_synthetic_goals` for one product: one goal per option combination, each with the product's
 * synthetic instruction, the options and one price bound drawn for the product. When the
 * product has no synthetic instruction (WebShop skips those products): none.
 */
export function syntheticGoals(product: Product, annotation: Annotation, r: Rng): Goal[] {
  const attributes = annotation.instructionAttributes ?? [];
  if (annotation.instruction === undefined || attributes.length === 0) return [];
  const bound = priceUpper(product.price, r);
  return optionCombinations(product.options).map((goalOptions) => ({
    asin: product.asin,
    query: product.query,
    category: product.category,
    name: product.title,
    productCategory: product.productCategory,
    instruction: `${annotation.instruction}${optionText(goalOptions)}${bound.text}`,
    attributes,
    priceUpper: bound.priceUpper,
    goalOptions,
  }));
}

/** A goal's option values in the order the instruction names them. */
export function goalOptionValues(goal: Goal): string[] {
  return Array.isArray(goal.goalOptions) ? goal.goalOptions : Object.values(goal.goalOptions);
}

/**
 * `get_human_goals` for one instruction: its attributes and option texts, the instruction without
 * leading or trailing dots plus the price bound. None when it names no attribute (WebShop skips those).
 */
export function humanGoal(product: Product, human: HumanInstruction, r: Rng): Goal | undefined {
  if (human.instructionAttributes.length === 0) return undefined;
  const bound = priceUpper(product.price, r);
  return {
    asin: product.asin,
    query: product.query,
    category: product.category,
    name: product.title,
    productCategory: product.productCategory,
    instruction: `${human.instruction.replace(/^\.+|\.+$/g, "")}${bound.text}`,
    attributes: human.instructionAttributes,
    priceUpper: bound.priceUpper,
    goalOptions: human.instructionOptions,
  };
}
