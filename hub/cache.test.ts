import { describe, expect, it } from "vitest";
import { TtlCache } from "./cache.js";

describe("TtlCache", () => {
  it("serves an entry until its time to live is over, and forgets on clear", () => {
    const cache = new TtlCache<string>(1_000);
    cache.set("a", "x", 5_000);
    expect(cache.get("a", 5_999)).toBe("x");
    // Stored at 5,000 with a 1,000 ms life: gone from 6,000 on.
    expect(cache.get("a", 6_000)).toBeUndefined();
    cache.set("b", "y", 0);
    cache.clear();
    expect(cache.get("b", 1)).toBeUndefined();
  });

  it("drops the oldest entry beyond its size", () => {
    const cache = new TtlCache<number>(1_000, 2);
    cache.set("a", 1, 0);
    cache.set("b", 2, 0);
    cache.set("c", 3, 0);
    expect([cache.get("a", 1), cache.get("b", 1), cache.get("c", 1)]).toEqual([undefined, 2, 3]);
  });
});
