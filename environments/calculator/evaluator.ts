import type { Result } from "../../shared/result.js";

/** Longest expression the calculator accepts; keeps parsing cost bounded. */
export const MAX_EXPRESSION_CHARS = 500;
const MAX_DEPTH = 64;

type Token = { kind: "num"; value: number } | { kind: "op"; value: string };

const OPS: Record<string, string> = { "×": "*", "÷": "/", "−": "-", "**": "^" };

function tokenize(src: string): Result<Token[]> {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i] as string;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const num = /^(\d{1,3}(?:,\d{3})+(?:\.\d*)?|\d+\.?\d*|\.\d+)(e[+-]?\d+)?/i.exec(src.slice(i));
    if (num) {
      tokens.push({ kind: "num", value: Number(num[0].replaceAll(",", "")) });
      i += num[0].length;
      continue;
    }
    if (src.startsWith("**", i) || src.startsWith("//", i)) {
      tokens.push({ kind: "op", value: src[i] === "*" ? "^" : "//" });
      i += 2;
      continue;
    }
    if ("+-*/^()%×÷−".includes(ch)) {
      tokens.push({ kind: "op", value: OPS[ch] ?? ch });
      i++;
      continue;
    }
    if (ch === "$") {
      i++;
      continue;
    }
    return { ok: false, error: `unexpected character "${ch}" at position ${i}` };
  }
  return { ok: true, value: tokens };
}

/**
 * Safe arithmetic: + - * / (also × ÷), parentheses, decimals, powers (^ or **), postfix percent
 * (`50%` is 0.5), binary `%` as remainder and `//` as floor division (two GSM8K annotations use it). A recursive-descent parser, never `eval`.
 */
export function evaluate(expression: string): Result<number> {
  if (expression.length > MAX_EXPRESSION_CHARS) {
    return { ok: false, error: `expression is longer than ${MAX_EXPRESSION_CHARS} characters` };
  }
  const lexed = tokenize(expression);
  if (!lexed.ok) return lexed;
  const tokens = lexed.value;
  if (tokens.length === 0) return { ok: false, error: "empty expression" };
  let pos = 0;
  const peek = () => tokens[pos];
  const isOp = (v: string) => {
    const t = peek();
    return t?.kind === "op" && t.value === v;
  };
  const startsOperand = (t: Token | undefined) => t !== undefined && (t.kind === "num" || t.value === "(");

  const fail = (msg: string): never => {
    throw new CalcError(msg);
  };

  const expr = (depth: number): number => {
    if (depth > MAX_DEPTH) fail("expression is nested too deeply");
    let v = term(depth);
    while (isOp("+") || isOp("-")) {
      const op = (tokens[pos++] as Token).value;
      const r = term(depth);
      v = op === "+" ? v + r : v - r;
    }
    return v;
  };
  const term = (depth: number): number => {
    let v = unary(depth);
    for (;;) {
      if (isOp("*") || isOp("/") || isOp("//")) {
        const op = (tokens[pos++] as Token).value;
        const r = unary(depth);
        if (op !== "*" && r === 0) fail("division by zero");
        v = op === "*" ? v * r : op === "/" ? v / r : Math.floor(v / r);
      } else if (isOp("%") && startsOperand(tokens[pos + 1])) {
        pos++;
        const r = unary(depth);
        if (r === 0) fail("remainder by zero");
        v %= r;
      } else return v;
    }
  };
  const unary = (depth: number): number => {
    if (isOp("-") || isOp("+")) {
      const op = (tokens[pos++] as Token).value;
      if (depth > MAX_DEPTH) fail("expression is nested too deeply");
      const v = unary(depth + 1);
      return op === "-" ? -v : v;
    }
    return power(depth);
  };
  const power = (depth: number): number => {
    const base = postfix(depth);
    if (isOp("^")) {
      pos++;
      return base ** unary(depth + 1);
    }
    return base;
  };
  const postfix = (depth: number): number => {
    let v = primary(depth);
    while (isOp("%") && !startsOperand(tokens[pos + 1])) {
      pos++;
      v /= 100;
    }
    return v;
  };
  const primary = (depth: number): number => {
    const t = tokens[pos++];
    if (!t) return fail("expression ends too early");
    if (t.kind === "num") return t.value;
    if (t.value === "(") {
      const v = expr(depth + 1);
      if (!isOp(")")) fail("missing closing parenthesis");
      pos++;
      return v;
    }
    return fail(`unexpected "${t.value}"`);
  };

  try {
    const value = expr(0);
    if (pos < tokens.length) return { ok: false, error: `unexpected "${(tokens[pos] as Token).value}"` };
    if (!Number.isFinite(value)) return { ok: false, error: "result is not a finite number" };
    return { ok: true, value };
  } catch (e) {
    if (e instanceof CalcError) return { ok: false, error: e.message };
    throw e;
  }
}

class CalcError extends Error {}

/** A result as the model sees it: at most 12 significant digits, no float noise like 0.30000000000000004. */
export function formatNumber(n: number): string {
  const rounded = Number(n.toPrecision(12));
  return Object.is(rounded, -0) ? "0" : String(rounded);
}
