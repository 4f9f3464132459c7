import { normalizeColor, normalizeColorPair } from "./colors.js";
import { tokenSetRatio } from "./fuzzy.js";
import type { Goal } from "./goal.js";
import { titleNouns } from "./nouns.js";
import type { Product } from "./product.js";

/** thefuzz 0.19.0's `token_set_ratio`, as WebShop ran it (`fuzzy.ts`). */
const fuzzy = tokenSetRatio;
/** WebShop counts a fuzzy match when the score is strictly above this. */
const MATCH_ABOVE = 85;

/** The type reward's parts (`get_type_reward`). */
export type TypeReward = { rType: number; queryMatch: boolean; categoryMatch: boolean; titleScore: number };

const categoryParts = (c: string) => new Set(c.split("›").map((x) => x.trim()));

/**
 * `get_type_reward`: r_type is 1 when the query matches, ≥ 2 breadcrumb parts are shared or the title
 * score is above 0.2, else 0.5; then 0.1 when the title score is below 0.1 and 0 when it is 0. The
 * title score is |set(nouns(bought)) ∩ set(nouns(goal))| / |nouns(goal)|, the goal's nouns counted with
 * repeats (so an identical title that repeats a noun scores below 1, as in WebShop), 0.2 when the goal
 * title has none.
 */
export function typeReward(bought: Product, goal: Goal): TypeReward {
  const queryMatch = bought.query === goal.query;
  const goalParts = categoryParts(goal.productCategory);
  const shared = [...categoryParts(bought.productCategory)].filter((p) => goalParts.has(p)).length;
  const categoryMatch = shared >= 2;
  const desired = titleNouns(goal.name);
  const purchased = new Set(titleNouns(bought.title));
  const common = new Set(desired.filter((n) => purchased.has(n))).size;
  const titleScore = desired.length === 0 ? 0.2 : common / desired.length;
  let rType = queryMatch || categoryMatch || titleScore > 0.2 ? 1 : 0.5;
  if (titleScore < 0.1) rType = 0.1;
  if (titleScore === 0) rType = 0;
  return { rType, queryMatch, categoryMatch, titleScore };
}

/**
 * `get_attribute_reward`: a goal attribute matches when some product attribute scores > 85 on
 * token_set_ratio, or it is a substring of the lowercased title, bullet points or description.
 */
export function attributeMatches(bought: Product, goal: Goal): number {
  const title = bought.title.toLowerCase();
  const bullets = bought.bullets.join(" ").toLowerCase();
  const description = bought.description.toLowerCase();
  return goal.attributes.filter(
    (g) =>
      bought.attributes.some((p) => fuzzy(p, g) > MATCH_ABOVE) ||
      title.includes(g) ||
      bullets.includes(g) ||
      description.includes(g),
  ).length;
}

/**
 * `get_option_reward`: after colour normalisation, a goal option matches when some chosen value scores
 * > 85 against it. Synthetic goals hold `{name: value}`, which WebShop passes as `(name, value)` pairs.
 */
export function optionMatches(chosen: readonly string[], goal: Goal): number {
  const bought = chosen.map(normalizeColor);
  const wanted = Array.isArray(goal.goalOptions)
    ? goal.goalOptions.map(normalizeColor)
    : Object.entries(goal.goalOptions).map(([k, v]) => normalizeColorPair(k, v));
  return wanted.filter((g) => bought.some((p) => fuzzy(p, g) > MATCH_ABOVE)).length;
}

/** The reward and its parts: the three weighted parts sum to the total. */
export type WebshopReward = {
  total: number;
  components: { attributes: number; options: number; price: number };
  details: Record<string, number>;
};

/**
 * `get_reward`: total = r_type × (n_attr + n_opt + r_price) / (|attributes| + |goal options| + 1),
 * with r_price = [price ≤ price_upper]. The components are r_type × n / denominator for each part.
 */
export function webshopReward(bought: Product, chosen: readonly string[], goal: Goal): WebshopReward {
  const type = typeReward(bought, goal);
  const nAttr = attributeMatches(bought, goal);
  const nOpt = optionMatches(chosen, goal);
  const nGoalOptions = Array.isArray(goal.goalOptions)
    ? goal.goalOptions.length
    : Object.keys(goal.goalOptions).length;
  const rPrice = bought.price <= goal.priceUpper ? 1 : 0;
  const denominator = goal.attributes.length + nGoalOptions + 1;
  const total = (type.rType * (nAttr + nOpt + rPrice)) / denominator;
  const attributes = (type.rType * nAttr) / denominator;
  const options = (type.rType * nOpt) / denominator;
  return {
    total,
    components: { attributes, options, price: lastPart(total, attributes + options) },
    details: {
      r_type: type.rType,
      query_match: type.queryMatch ? 1 : 0,
      category_match: type.categoryMatch ? 1 : 0,
      title_score: type.titleScore,
      n_attr: nAttr,
      n_opt: nOpt,
      r_price: rPrice,
      goal_attributes: goal.attributes.length,
      goal_options: nGoalOptions,
      r_att: goal.attributes.length === 0 ? 0 : nAttr / goal.attributes.length,
      w_att: goal.attributes.length / denominator,
      ...(nGoalOptions === 0 ? {} : { r_option: nOpt / nGoalOptions, w_option: nGoalOptions / denominator }),
      w_price: 1 / denominator,
    },
  };
}

/**
 * The last part, so that `0 + attributes + options + price` (the order the kit sums components in)
 * is exactly `total`: a perfect purchase must score exactly 1, not 0.9999999999999999. The result is
 * within a few ulps of r_type × r_price / denominator.
 */
function lastPart(total: number, before: number): number {
  let part = total - before;
  for (let i = 0; i < 4 && before + part !== total; i++) part += total - (before + part);
  return part;
}
