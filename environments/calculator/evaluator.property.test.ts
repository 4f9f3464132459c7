import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluate, MAX_EXPRESSION_CHARS } from "./evaluator.js";

/** An arithmetic expression tree: the reference semantics the parser must match. */
type Expr =
  | { leaf: string }
  | { op: "+" | "-" | "*" | "/" | "%"; l: Expr; r: Expr }
  | { op: "^"; base: Expr; exp: number }
  | { op: "neg" | "pct"; e: Expr };

const leaf = fc.oneof(
  fc.integer({ min: 0, max: 100_000 }).map(String),
  fc.integer({ min: 0, max: 99_999 }).map((n) => String(n / 100)),
);

const expr: fc.Arbitrary<Expr> = fc.letrec<{ e: Expr }>((tie) => ({
  e: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf.map((v) => ({ leaf: v })),
    fc.record({ op: fc.constantFrom("+", "-", "*", "/", "%"), l: tie("e"), r: tie("e") }),
    fc.record({ op: fc.constant("^"), base: tie("e"), exp: fc.integer({ min: 0, max: 3 }) }),
    fc.record({ op: fc.constantFrom("neg", "pct"), e: tie("e") }),
  ) as fc.Arbitrary<Expr>,
})).e;

/** Fully parenthesised text, so precedence cannot change the meaning. */
function render(e: Expr): string {
  if ("leaf" in e) return e.leaf;
  if ("e" in e) return e.op === "neg" ? `-(${render(e.e)})` : `(${render(e.e)})%`;
  if ("base" in e) return `(${render(e.base)})^${e.exp}`;
  return `(${render(e.l)})${e.op}(${render(e.r)})`;
}

/** The reference value in plain JS arithmetic, or the error the calculator must report. */
function reference(e: Expr): number | "division by zero" | "remainder by zero" {
  if ("leaf" in e) return Number(e.leaf);
  if ("e" in e) {
    const v = reference(e.e);
    if (typeof v === "string") return v;
    return e.op === "neg" ? -v : v / 100;
  }
  if ("base" in e) {
    const b = reference(e.base);
    return typeof b === "string" ? b : b ** e.exp;
  }
  const l = reference(e.l);
  if (typeof l === "string") return l;
  const r = reference(e.r);
  if (typeof r === "string") return r;
  if (e.op === "/" && r === 0) return "division by zero";
  if (e.op === "%" && r === 0) return "remainder by zero";
  return { "+": l + r, "-": l - r, "*": l * r, "/": l / r, "%": l % r }[e.op];
}

describe("calculator evaluator properties", () => {
  it("random text never throws and any value it returns is finite", () => {
    const calcish = fc.string({
      unit: fc.oneof(fc.constantFrom(..."0123456789+-*/^()%.,×÷− e$"), fc.string({ maxLength: 1 })),
      maxLength: MAX_EXPRESSION_CHARS + 20,
    });
    fc.assert(
      fc.property(fc.oneof(calcish, fc.string({ maxLength: 600 })), (text) => {
        const r = evaluate(text);
        if (r.ok) expect(Number.isFinite(r.value)).toBe(true);
        else expect(r.error.length).toBeGreaterThan(0);
      }),
      { numRuns: 3000 },
    );
  });

  it("deep nesting and long inputs are refused quickly, not recursed into", () => {
    for (const n of [65, 200, 10_000]) {
      expect(evaluate(`${"(".repeat(n)}1${")".repeat(n)}`).ok).toBe(false);
      expect(evaluate("-".repeat(n)).ok).toBe(false);
    }
    expect(evaluate(`${"(".repeat(60)}1${")".repeat(60)}`)).toEqual({ ok: true, value: 1 });
  });

  it("valid expressions evaluate exactly as the reference computation", () => {
    fc.assert(
      fc.property(expr, (e) => {
        const text = render(e);
        const got = evaluate(text);
        const want = reference(e);
        if (text.length > MAX_EXPRESSION_CHARS) {
          expect(got.ok).toBe(false);
        } else if (typeof want === "string") {
          expect(got).toEqual({ ok: false, error: want });
        } else if (!Number.isFinite(want)) {
          expect(got).toEqual({ ok: false, error: "result is not a finite number" });
        } else {
          expect(got, text).toEqual({ ok: true, value: want });
        }
      }),
      { numRuns: 3000 },
    );
  });
});
