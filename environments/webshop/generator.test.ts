import { describe, expect, it } from "vitest";
import { KINDS } from "./catalog-data.js";
import { BUILTIN_SPLITS, builtinCatalog, builtinGoal } from "./generator.js";
import type { Goal } from "./goal.js";
import { optionMatches } from "./reward.js";

describe("the built-in WebShop catalog and goals", () => {
  it("is deterministic, with unique ten-character asins", () => {
    const a = builtinCatalog(300, 5);
    expect(builtinCatalog(300, 5)).toBe(a);
    expect(JSON.stringify(builtinCatalog(300, 6))).not.toBe(JSON.stringify(a));
    expect(new Set(a.map((p) => p.asin)).size).toBe(300);
    expect(a.every((p) => /^B0[A-Z0-9]{8}$/.test(p.asin))).toBe(true);
    expect(builtinGoal(a, "train", 17)).toEqual(builtinGoal(a, "train", 17));
  });

  it("keeps train and test goals on disjoint products (every tenth product is test)", () => {
    const catalog = builtinCatalog(1000);
    const index = new Map(catalog.map((p, i) => [p.asin, i]));
    const of = (split: string) =>
      Array.from({ length: 300 }, (_, i) => index.get(builtinGoal(catalog, split, i).asin) ?? -1);
    expect(of("test").every((i) => i % 10 === 0)).toBe(true);
    expect(of("train").every((i) => i % 10 !== 0)).toBe(true);
    expect(Object.keys(BUILTIN_SPLITS)).toEqual(["train", "test"]);
  });

  it("has no option value that WebShop's colour normalisation would fail to match with itself", () => {
    for (const kind of KINDS) {
      for (const [name, values] of Object.entries(kind.options)) {
        for (const v of values) {
          const goal = { goalOptions: { [name]: v } } as unknown as Goal;
          expect(optionMatches([v], goal), `${name}: ${v}`).toBe(1);
        }
      }
    }
  });
});
