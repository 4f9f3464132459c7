import { token_set_ratio } from "fuzzball";
import { describe, expect, it } from "vitest";
import { thefuzzProcess, tokenSetRatio } from "./fuzzy.js";
import type { Goal } from "./goal.js";
import { optionMatches } from "./reward.js";

// Expected scores are worked out by hand with thefuzz 0.19.0's token_set_ratio: tokens of the processed
// strings as sets, sect = sorted intersection, c12 = sect + sorted(a − b), c21 = sect + sorted(b − a),
// score = max(ratio(sect, c12), ratio(sect, c21), ratio(c12, c21)), ratio = round(100 · 2M / T) with M
// the characters in difflib's matching blocks and T the two lengths summed.
describe("WebShop's fuzzy match is thefuzz 0.19.0's token_set_ratio", () => {
  it('"10x50 uhd binoculars" vs "8x40 uhd binoculars" scores 85 (no match), not 87', () => {
    // sect "binoculars uhd" (14), c12 "binoculars uhd 10x50" (20), c21 "binoculars uhd 8x40" (19).
    // ratio(sect, c12) = 2·14/34 = 82.35 → 82; ratio(sect, c21) = 2·14/33 = 84.85 → 85;
    // ratio(c12, c21): difflib's longest block "binoculars uhd " (15), then in "10x50" vs "8x40" the
    // first longest block "0" (1), nothing on either side of it: M = 16, 2·16/39 = 82.05 → 82.
    expect(tokenSetRatio("10x50 uhd binoculars", "8x40 uhd binoculars")).toBe(85);
    // fuzzball's default (Levenshtein, an LCS: "binoculars uhd " + "x0" = 17): 2·17/39 = 87.18 → 87,
    // which crossed WebShop's "> 85".
    expect(token_set_ratio("10x50 uhd binoculars", "8x40 uhd binoculars", { force_ascii: true })).toBe(87);
  });

  it("keeps letters outside U+0080–U+00FF: full-width ｘｌ scores 100 against itself, not 0", () => {
    expect(thefuzzProcess("ＸＬ")).toBe("ｘｌ");
    expect(tokenSetRatio("ｘｌ", "ｘｌ")).toBe(100);
    expect(token_set_ratio("ｘｌ", "ｘｌ", { force_ascii: true })).toBe(0); // fuzzball drops both: ""
  });

  it("turns a non-breaking hyphen into a space: x‑large vs x-large is 100, not 77", () => {
    // Both become "x large": tokens {large, x} on both sides, c12 = c21 = sect = "large x": 100.
    expect(thefuzzProcess("x\u2011large")).toBe("x large");
    expect(tokenSetRatio("x\u2011large", "x-large")).toBe(100);
    // fuzzball dropped U+2011: "xlarge" vs "x large", LCS "large" → 2·5/13 = 76.9 → 77.
    expect(token_set_ratio("x\u2011large", "x-large", { force_ascii: true })).toBe(77);
  });

  it("still drops U+0080–U+00FF as thefuzz does, and keeps _ as Python's \\w does", () => {
    // "caf" vs "cafe": no common token; ratio("caf", "cafe") = 2·3/7 = 85.71 → 86.
    expect(thefuzzProcess("Café!")).toBe("caf");
    expect(tokenSetRatio("café", "cafe")).toBe(86);
    // "snake_case" vs {case, snake}: c12 "snake_case", c21 "case snake"; difflib's longest block is
    // "snake" (5), nothing after it matches: 2·5/20 = 50. fuzzball turned _ into a space: 100.
    expect(tokenSetRatio("snake_case", "snake case")).toBe(50);
    expect(tokenSetRatio("", "x")).toBe(0);
    expect(tokenSetRatio("!!!", "!!!")).toBe(0); // nothing left after processing, as in thefuzz
  });

  it("decides WebShop's option match with it: x‑large bought for an x-large goal counts", () => {
    const goal = { goalOptions: ["x-large"] } as unknown as Goal;
    expect(optionMatches(["x\u2011large"], goal)).toBe(1); // 100 > 85; before, 77 did not match
    expect(optionMatches(["ｘｌ"], { goalOptions: ["ｘｌ"] } as unknown as Goal)).toBe(1);
  });
});
