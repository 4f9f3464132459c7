import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deeperThan, MAX_JSON_DEPTH } from "./json-depth.js";

/** `levels` nested arrays: `[[...]]`. */
const arrays = (levels: number): unknown => {
  let v: unknown[] = [];
  for (let i = 1; i < levels; i++) v = [v];
  return v;
};

describe("deeperThan", () => {
  it("counts each object or array as one level and primitives as none", () => {
    expect(deeperThan(7, 0)).toBe(false);
    expect(deeperThan("deep", 0)).toBe(false);
    expect(deeperThan({}, 0)).toBe(true);
    expect(deeperThan({}, 1)).toBe(false);
    // {a: [ {b: 1} ]}: object, array, object = 3 levels.
    expect(deeperThan({ a: [{ b: 1 }] }, 2)).toBe(true);
    expect(deeperThan({ a: [{ b: 1 }] }, 3)).toBe(false);
  });

  it(`allows ${MAX_JSON_DEPTH} levels by default and refuses ${MAX_JSON_DEPTH + 1}`, () => {
    expect(deeperThan(arrays(MAX_JSON_DEPTH))).toBe(false);
    expect(deeperThan(arrays(MAX_JSON_DEPTH + 1))).toBe(true);
  });

  it("walks a value far deeper than the stack allows without overflowing", () => {
    const text = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    expect(deeperThan(JSON.parse(text))).toBe(true);
  });

  it("agrees with a recursive depth count on any JSON value", () => {
    const depth = (v: unknown): number =>
      typeof v === "object" && v !== null ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 0;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 10 }), (v, max) => {
        expect(deeperThan(v, max)).toBe(depth(v) > max);
      }),
    );
  });
});
