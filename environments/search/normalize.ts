/**
 * HotpotQA's official answer scoring (hotpot_evaluate_v1.py), ported with Python's Unicode semantics:
 * `\b` and `str.split()` are Unicode-aware in Python 3 and ASCII-only in JavaScript, so the word
 * boundary and the whitespace class are spelled out here.
 */

/** Python's `string.punctuation`: ASCII only, so `’` or `–` survive normalization, as in the original. */
const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;
/** `\b(a|an|the)\b` where a word character is Python's `\w`: a Unicode letter, digit or `_`. */
const ARTICLES = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu;
/** Characters for which Python's `str.isspace()` is true (JavaScript's `\s` differs: no \x1c-\x1f or \x85, but \ufeff). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: Python's isspace() is true for U+001C–U+001F.
const WHITESPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/** Python's `str.split()` with no argument: runs of whitespace separate, empty parts are dropped. */
export function pySplit(text: string): string[] {
  return text.split(WHITESPACE).filter((t) => t !== "");
}

/** `white_space_fix(remove_articles(remove_punc(lower(s))))`. */
export function normalizeAnswer(s: string): string {
  const lowered = s.toLowerCase();
  const noPunc = lowered.replace(PUNCTUATION, "");
  const noArticles = noPunc.replace(ARTICLES, " ");
  return pySplit(noArticles).join(" ");
}

export function exactMatch(prediction: string, gold: string): number {
  return normalizeAnswer(prediction) === normalizeAnswer(gold) ? 1 : 0;
}

const SPECIAL = new Set(["yes", "no", "noanswer"]);

/**
 * Token F1 = 2·P·R / (P + R) with P = |common| / |prediction tokens|, R = |common| / |gold tokens|,
 * common counted as a multiset; yes/no/noanswer score 0 unless equal, as in the official script.
 */
export function f1Score(prediction: string, gold: string): number {
  const p = normalizeAnswer(prediction);
  const g = normalizeAnswer(gold);
  if ((SPECIAL.has(p) || SPECIAL.has(g)) && p !== g) return 0;
  return tokenF1(pySplit(p), pySplit(g));
}

/** Token F1 of two token lists, common tokens counted as a multiset; 0 when none are shared. */
function tokenF1(pt: readonly string[], gt: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const t of gt) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of pt) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      same++;
      counts.set(t, c - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / pt.length;
  const recall = same / gt.length;
  return (2 * precision * recall) / (precision + recall);
}

/**
 * MuSiQue's answer F1 (metrics/answer.py, SQuAD's compute_f1): the same normalization and token F1,
 * but no yes/no/noanswer rule, and two empty answers agree (1) where HotpotQA's script gives 0.
 */
export function musiqueF1(prediction: string, gold: string): number {
  const pt = prediction === "" ? [] : pySplit(normalizeAnswer(prediction));
  const gt = gold === "" ? [] : pySplit(normalizeAnswer(gold));
  if (pt.length === 0 || gt.length === 0) return pt.length === gt.length ? 1 : 0;
  return tokenF1(pt, gt);
}

/** Which official script scores answers: HotpotQA's hotpot_evaluate_v1.py or MuSiQue's metrics/answer.py. */
export type AnswerMetric = "hotpotqa" | "musique";

/** Best EM and F1 over every correct answer (the answer and its aliases), as the metric's script scores them. */
export function scoreAnswer(
  prediction: string,
  golds: readonly string[],
  metric: AnswerMetric = "hotpotqa",
): { em: number; f1: number } {
  const f1Of = metric === "musique" ? musiqueF1 : f1Score;
  let em = 0;
  let f1 = 0;
  for (const g of golds) {
    em = Math.max(em, exactMatch(prediction, g));
    f1 = Math.max(f1, f1Of(prediction, g));
  }
  return { em, f1 };
}

const EDGES = new RegExp(`^${WHITESPACE.source}|${WHITESPACE.source}$`, "g");

/** Python's `str.strip()`: only `str.isspace()` characters, so a byte-order mark (U+FEFF) stays. */
export function pyStrip(text: string): string {
  return text.replace(EDGES, "");
}

/** The text of the last `<answer>…</answer>`, stripped as Python strips, or `undefined` when there is none. */
export function extractAnswer(text: string): string | undefined {
  const all = [...text.matchAll(/<answer>([\s\S]*?)<\/answer>/gi)];
  const inner = all.at(-1)?.[1];
  return inner === undefined ? undefined : pyStrip(inner);
}
