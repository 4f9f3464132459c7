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
  const parser = new Parser(tokens);
  try {
    const value = parser.expr(0);
    if (parser.pos < tokens.length) {
      return { ok: false, error: `unexpected "${(tokens[parser.pos] as Token).value}"` };
    }
    if (!Number.isFinite(value)) return { ok: false, error: "result is not a finite number" };
    return { ok: true, value };
  } catch (e) {
    if (e instanceof CalcError) return { ok: false, error: e.message };
    throw e;
  }
}

/**
 * The grammar, one method per precedence level. A class rather than closures inside `evaluate`:
 * the TypeScript loaders and bundlers here keep function names, which costs a property definition
 * per closure on every call.
 */
class Parser {
  pos = 0;
  constructor(private readonly tokens: Token[]) {}

  private isOp(v: string): boolean {
    const t = this.tokens[this.pos];
    return t?.kind === "op" && t.value === v;
  }

  private startsOperand(t: Token | undefined): boolean {
    return t !== undefined && (t.kind === "num" || t.value === "(");
  }

  expr(depth: number): number {
    if (depth > MAX_DEPTH) fail("expression is nested too deeply");
    let v = this.term(depth);
    while (this.isOp("+") || this.isOp("-")) {
      const op = (this.tokens[this.pos++] as Token).value;
      const r = this.term(depth);
      v = op === "+" ? v + r : v - r;
    }
    return v;
  }

  private term(depth: number): number {
    let v = this.unary(depth);
    for (;;) {
      if (this.isOp("*") || this.isOp("/") || this.isOp("//")) {
        const op = (this.tokens[this.pos++] as Token).value;
        const r = this.unary(depth);
        if (op !== "*" && r === 0) fail("division by zero");
        v = op === "*" ? v * r : op === "/" ? v / r : Math.floor(v / r);
      } else if (this.isOp("%") && this.startsOperand(this.tokens[this.pos + 1])) {
        this.pos++;
        const r = this.unary(depth);
        if (r === 0) fail("remainder by zero");
        v %= r;
      } else return v;
    }
  }

  private unary(depth: number): number {
    if (this.isOp("-") || this.isOp("+")) {
      const op = (this.tokens[this.pos++] as Token).value;
      if (depth > MAX_DEPTH) fail("expression is nested too deeply");
      const v = this.unary(depth + 1);
      return op === "-" ? -v : v;
    }
    return this.power(depth);
  }

  private power(depth: number): number {
    const base = this.postfix(depth);
    if (this.isOp("^")) {
      this.pos++;
      return base ** this.unary(depth + 1);
    }
    return base;
  }

  private postfix(depth: number): number {
    let v = this.primary(depth);
    while (this.isOp("%") && !this.startsOperand(this.tokens[this.pos + 1])) {
      this.pos++;
      v /= 100;
    }
    return v;
  }

  private primary(depth: number): number {
    const t = this.tokens[this.pos++];
    if (!t) return fail("expression ends too early");
    if (t.kind === "num") return t.value;
    if (t.value === "(") {
      const v = this.expr(depth + 1);
      if (!this.isOp(")")) fail("missing closing parenthesis");
      this.pos++;
      return v;
    }
    return fail(`unexpected "${t.value}"`);
  }
}

function fail(msg: string): never {
  throw new CalcError(msg);
}

class CalcError extends Error {}

/** A result as the model sees it: at most 12 significant digits, no float noise like 0.30000000000000004. */
export function formatNumber(n: number): string {
  const rounded = Number(n.toPrecision(12));
  return Object.is(rounded, -0) ? "0" : String(rounded);
}
