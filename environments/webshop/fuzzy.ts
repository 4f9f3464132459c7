import { token_set_ratio } from "fuzzball";

/**
 * WebShop's fuzzy matching: thefuzz 0.19.0's `token_set_ratio` (WebShop's requirements.txt pins
 * thefuzz==0.19.0 without python-Levenshtein, so its ratio is difflib's SequenceMatcher).
 *
 * fuzzball alone differs in two ways, both measured against thefuzz:
 * - its `force_ascii` drops every non-ASCII character, where thefuzz drops only U+0080–U+00FF and
 *   keeps other letters and digits (full-width `ｘｌ` scored 0 against itself; `x‑large` with a
 *   non-breaking hyphen 77 against `x-large`);
 * - its default ratio is Levenshtein-based (an LCS), where difflib matches greedily by longest block
 *   ("10x50 uhd binoculars" vs "8x40 uhd binoculars": 87, WebShop 85).
 * So the text is processed here as thefuzz does and fuzzball is asked for difflib's ratio.
 */

/** Characters thefuzz's `asciidammit` removes (Python 3: `range(128, 256)` only). */
const LATIN1 = /[\u0080-\u00ff]/g;
/** Python's `\W` under `re.UNICODE`: neither a letter, a number nor `_` (fuzzball also drops `_`). */
const NON_WORD = /[^\p{L}\p{N}_]/gu;

/** Already processed; difflib's ratio (a documented option of token_set_ratio that fuzzball.d.ts omits). */
const DIFFLIB = { full_process: false, ratio_alg: "difflib" };

/** thefuzz's `utils.full_process(s, force_ascii=True)`: drop U+0080–U+00FF, `\W` → space, lower, strip. */
export function thefuzzProcess(s: string): string {
  return s.replace(LATIN1, "").replace(NON_WORD, " ").toLowerCase().trim();
}

/**
 * `fuzz.token_set_ratio(a, b)` as thefuzz 0.19.0 computes it, 0–100. One known difference remains:
 * a ratio of exactly x.5 rounds up here (JavaScript's Math.round) and to even in Python's round();
 * at WebShop's threshold (> 85) that never changes a decision (84.5 is 84 or 85, 85.5 is 86 in both).
 */
export function tokenSetRatio(a: string, b: string): number {
  const p = thefuzzProcess(a);
  const q = thefuzzProcess(b);
  if (p === "" || q === "") return 0;
  return token_set_ratio(p, q, DIFFLIB);
}
