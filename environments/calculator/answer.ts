/**
 * The one numeric-answer parser of calculator, calculator-gsm8k, code and code-gsm8k.
 *
 * A number is an optional sign and `$`, digits with commas only as thousands separators (`1,234`,
 * never `12,34`), and an optional decimal part. It never crosses a space or a newline: `#### 18\n\n2.`
 * is 18, not 182. A comma that ends the number is punctuation (`#### 5, 6` is 5).
 */

/** `strict`: only `#### n` counts. `flexible`: also `\boxed{n}`, "The answer is n", then the last number. */
export type AnswerFormat = "strict" | "flexible";

export const ANSWER_FORMATS = ["strict", "flexible"] as const;

/** Sign, `$`, then digits and commas, then decimals; the comma grouping is checked in `toNumber`. */
const NUMBER = String.raw`[-+]?\$?[-+]?\d[\d,]*(?:\.\d+)?`;

/** The value of one matched number, or `undefined` when its commas are not thousands separators. */
export function toNumber(raw: string): number | undefined {
  const cleaned = raw.replace(/\$/g, "").replace(/,+$/, "");
  const m = /^([-+]?)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?$/.exec(cleaned);
  if (m === null) return undefined;
  const n = Number(`${m[1]}${(m[2] ?? "").replace(/,/g, "")}${m[3] ?? ""}`);
  return Number.isFinite(n) ? n : undefined;
}

/** The number in group 1 of `pattern`'s last match; malformed (`12,34`) is no answer, not an earlier match. */
function lastNumber(text: string, pattern: RegExp): number | undefined {
  const matches = [...text.matchAll(pattern)];
  const raw = matches.at(-1)?.[1];
  return raw === undefined ? undefined : toNumber(raw);
}

/** GSM8K's own rule: the number right after the last `####`, on the same line (spaces or tabs between). */
const HASHES = new RegExp(String.raw`####[ \t]*(${NUMBER})`, "g");
/** `\boxed{n}`, spaces allowed inside the braces (the math-verify / verl habit). */
const BOXED = new RegExp(String.raw`\\boxed\{\s*(${NUMBER})\s*\}`, "g");
/** lm-eval-harness's gsm8k-cot strict filter: "The answer is n". */
const ANSWER_IS = new RegExp(String.raw`[Tt]he (?:final )?answer is:?[ \t]*(${NUMBER})`, "g");
/** lm-eval-harness's flexible-extract and verl's flexible rule: any number, the last one wins. */
const ANY = new RegExp(`(${NUMBER})`, "g");

/** The number after the last `####` (GSM8K style). */
export function hashesAnswer(text: string): number | undefined {
  return lastNumber(text, HASHES);
}

/** The number inside the last `\boxed{…}` that holds only a number. */
export function boxedAnswer(text: string): number | undefined {
  return lastNumber(text, BOXED);
}

/**
 * The final answer in `format`. Strict reads `#### n` only. Flexible tries, in order, `#### n`, the
 * last `\boxed{n}`, the last "The answer is n", and then the last number anywhere in the text.
 */
export function extractAnswer(text: string, format: AnswerFormat = "strict"): number | undefined {
  const strict = hashesAnswer(text);
  if (format === "strict" || strict !== undefined) return strict;
  return boxedAnswer(text) ?? lastNumber(text, ANSWER_IS) ?? lastNumber(text, ANY);
}

/** GSM8K's numeric equality, tolerant to float noise from the calculator. */
export function sameNumber(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));
}
