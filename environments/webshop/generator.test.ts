import { describe, expect, it } from "vitest";
import { KINDS } from "./catalog-data.js";
import { BUILTIN_SPLITS, builtinCatalog, builtinGoal, builtinSplits, WEBSHOP_LEVELS } from "./generator.js";
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

  it("below the top level, names products by unique made-up words and changes nothing else", () => {
    const words = builtinCatalog(1000, 0, 1, "word");
    const asins = builtinCatalog(1000, 0, 1);
    // A click is read lowercased, so ids must differ without regard to case, and from every option value.
    const ids = words.map((p) => p.asin.toLowerCase());
    expect(new Set(ids).size).toBe(1000);
    expect(words.every((p) => /^[A-Z][a-z]+$/.test(p.asin))).toBe(true);
    const optionValues = new Set(
      words.flatMap((p) =>
        Object.values(p.options)
          .flat()
          .map((v) => v.toLowerCase()),
      ),
    );
    expect(ids.filter((id) => optionValues.has(id))).toEqual([]);
    // A product's id does not depend on the catalog's size: level 1's 300 are level 2's first 300.
    expect(builtinCatalog(300, 0, 1, "word").map((p) => p.asin)).toEqual(
      words.slice(0, 300).map((p) => p.asin),
    );
    const withoutId = ({ asin: _, ...rest }: { asin: string }) => rest;
    expect(words.map(withoutId)).toEqual(asins.map(withoutId));
    // The goals are the asin catalog's but for the product's id (instructions are drawn from the asin).
    for (const split of ["train", "validation", "test"])
      for (let i = 0; i < 50; i++) {
        const w = builtinGoal(words, split, i, 1);
        const a = builtinGoal(asins, split, i, 1);
        expect(ids.indexOf(w.asin.toLowerCase())).toBe(asins.findIndex((p) => p.asin === a.asin));
        expect({ ...w, asin: "" }).toEqual({ ...a, asin: "" });
      }
  });

  it("below the top level, keeps train, validation and test on disjoint tenths of the products", () => {
    const catalog = builtinCatalog(300, 0, 1, "word");
    const index = new Map(catalog.map((p, i) => [p.asin, i]));
    const of = (split: string) =>
      Array.from({ length: 300 }, (_, i) => index.get(builtinGoal(catalog, split, i, 1).asin) ?? -1);
    expect(of("test").every((i) => i % 10 === 0)).toBe(true);
    expect(of("validation").every((i) => i % 10 === 5)).toBe(true);
    expect(of("train").every((i) => i % 10 !== 0 && i % 10 !== 5)).toBe(true);
    // 300 products: 30 test (0, 10, ..., 290), 30 validation (5, 15, ..., 295), 240 train.
    expect(new Set(of("validation")).size).toBeLessThanOrEqual(30);
    expect(builtinSplits(1)).toEqual({ train: 10_000, test: 1_000, validation: 1_000 });
    expect(builtinSplits(WEBSHOP_LEVELS)).toEqual({ train: 10_000, test: 1_000 });
  });

  it("with the type wording, names the goal product's type from its title and changes nothing else", () => {
    for (const [level, catalog] of [
      [1, builtinCatalog(3000, 0, 1, "word")],
      [WEBSHOP_LEVELS, builtinCatalog(1000)],
    ] as const) {
      for (let i = 0; i < 200; i++) {
        const query = builtinGoal(catalog, "train", i, level);
        const typed = builtinGoal(catalog, "train", i, level, "type");
        // The same product, options, attributes and price bound: only the instruction's words differ.
        expect({ ...typed, instruction: "" }).toEqual({ ...query, instruction: "" });
        const type = /^(?:find me|i need|i am looking for) (.+?) that (?:is|are) /.exec(
          typed.instruction.toLowerCase(),
        )?.[1];
        expect(type, typed.instruction).toBeDefined();
        // One of its kind's nouns, as the goal product's title writes it.
        expect(typed.name.toLowerCase()).toContain(` ${type}`);
        expect(KINDS.some((k) => k.nouns.some((n) => n.toLowerCase() === type))).toBe(true);
        // The attributes are listed after the type, as the query wording lists them.
        for (const a of typed.attributes.filter((a) => query.instruction.includes(a)))
          expect(typed.instruction).toContain(a);
      }
    }
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
