import { describe, expect, it } from "vitest";
import { rng } from "../../shared/random.js";
import { humanGoal, optionCombinations, priceUpper, syntheticGoals } from "./goal.js";
import type { Product } from "./product.js";

const socks: Product = {
  asin: "B0SOCKS001",
  title: "Acme Cotton Socks",
  category: "fashion",
  query: "socks",
  productCategory: "Clothing › Socks",
  description: "",
  bullets: [],
  pricing: [23],
  price: 23,
  options: { size: ["s", "m"], color: ["red"] },
  attributes: ["cotton", "warm"],
  reviews: [],
  rating: "N.A.",
};

describe("WebShop goal generation", () => {
  it("price bound: the larger of two draws among the first four tens above the price", () => {
    // Above $23: 30, 40, 50, 60; the larger of two distinct draws is 40, 50 or 60, never 30.
    const seen = new Set<number>();
    for (let seed = 0; seed < 50; seed++) seen.add(priceUpper(23, rng(seed)).priceUpper);
    expect([...seen].sort()).toEqual([40, 50, 60]);
    expect(priceUpper(23, rng(3)).text).toBe(
      `, and price lower than ${priceUpper(23, rng(3)).priceUpper}.00 dollars`,
    );
    // $985: only $990 is above, fewer than two candidates: no bound, no text.
    expect(priceUpper(985, rng(1))).toEqual({ priceUpper: 1_000_000, text: "" });
  });

  it("synthetic goals: one per option combination, names sorted, one price bound per product", () => {
    expect(optionCombinations(socks.options)).toEqual([
      { color: "red", size: "s" },
      { color: "red", size: "m" },
    ]);
    const goals = syntheticGoals(
      socks,
      {
        asin: socks.asin,
        attributes: socks.attributes,
        instruction: "Find me cotton socks",
        instructionAttributes: ["cotton"],
      },
      rng(7),
    );
    const upper = goals[0]?.priceUpper;
    expect(goals.map((g) => g.instruction)).toEqual([
      `Find me cotton socks with color: red, and size: s, and price lower than ${upper}.00 dollars`,
      `Find me cotton socks with color: red, and size: m, and price lower than ${upper}.00 dollars`,
    ]);
    expect(goals[1]).toMatchObject({
      attributes: ["cotton"],
      priceUpper: upper,
      name: "Acme Cotton Socks",
      query: "socks",
    });
    // No synthetic instruction: WebShop skips the product.
    expect(syntheticGoals(socks, { asin: socks.asin, attributes: [] }, rng(7))).toEqual([]);
  });

  it("human goals: dots stripped, attributes and option texts kept", () => {
    const human = {
      asin: socks.asin,
      instruction: "..i want socks.",
      instructionAttributes: ["cotton"],
      instructionOptions: ["red"],
    };
    const g = humanGoal(socks, human, rng(2));
    expect(g).toMatchObject({ attributes: ["cotton"], goalOptions: ["red"], name: "Acme Cotton Socks" });
    expect(g?.instruction).toBe(`i want socks, and price lower than ${g?.priceUpper}.00 dollars`);
    expect(humanGoal(socks, { ...human, instructionAttributes: [] }, rng(2))).toBeUndefined();
  });
});
