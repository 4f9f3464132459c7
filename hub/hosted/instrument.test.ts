import { describe, expect, it } from "vitest";
import { instrumentModule } from "./instrument.js";

/** Runs an instrumented script body (its guard import dropped) with a counting tick; returns value and ticks. */
function run(source: string): { value: unknown; ticks: number } {
  const out = instrumentModule(`${source}\n`, "sub/mod.js");
  if (!out.ok) throw new Error(out.error);
  const [first, ...rest] = out.value.split("\n");
  expect(first).toBe('import { __edgegym_tick } from "../__edgegym/guard.js";');
  let ticks = 0;
  const tick = () => {
    ticks++;
  };
  const value = new Function("__edgegym_tick", `${rest.join("\n")}; return out;`)(tick);
  return { value, ticks };
}

describe("instrumentModule", () => {
  it("ticks once per function call and loop iteration, and keeps what the code computes", () => {
    const { value, ticks } = run(`
      function add(a, b) { return a + b; }
      const double = (x) => x * 2;
      let out = 0;
      for (let i = 0; i < 3; i++) out = add(out, i);
      while (out < 10) out++;
      do out--; while (out > 8);
      for (const k of [1, 2]) out += double(k);
      for (const k in { a: 1 }) out += k.length;`);
    // add 3 + for 3 + while 7 + do 2 + for-of 2 + double 2 + for-in 1.
    expect({ value, ticks }).toEqual({ value: 15, ticks: 20 });
  });

  it("keeps arrows' expression bodies, object literals and nesting intact", () => {
    const { value, ticks } = run(`
      const obj = () => ({ a: 1 });
      const curry = (x) => (y) => x + y;
      const seq = () => (1, 2);
      label: for (;;) { while (true) break label; }
      const out = [obj().a, curry(2)(3), seq(), class { m() { return 4; } }.prototype.m()];`);
    expect(value).toEqual([1, 5, 2, 4]);
    // obj, curry, its inner arrow, seq, m; the outer for and the while run once each.
    expect(ticks).toBe(7);
  });

  it("refuses dynamic import, the reserved names, and what does not parse", () => {
    const refused = (src: string) => {
      const r = instrumentModule(src, "a.js");
      return r.ok ? "accepted" : r.error;
    };
    expect(refused('export const f = () => import("./b.js");')).toContain("dynamic import()");
    expect(refused("let __edgegym_tick = 1;")).toContain("reserved for the hub");
    expect(refused("function f(\\u005f_edgegym_tick) {}")).toContain("reserved for the hub");
    expect(refused('import { a as __edgegym_tick } from "./b.js";')).toContain("reserved for the hub");
    expect(refused('export * from "./__edgegym/guard.js";')).toContain("reserved for the hub");
    expect(refused("for (;;) {")).toContain("is not an ES module");
  });
});
