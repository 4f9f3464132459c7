import { bytesToUnicode, type Merge, WORD_PIECES } from "./byte-level-json.js";

/** The split the tokenizer's `Split` pre-tokenizer makes, so merges are learned on the pieces it will see. */
const PIECES = new RegExp(WORD_PIECES, "gu");

/** How often each pre-tokenized piece occurs in `texts`, each piece as its byte-level characters. */
export function pieceCounts(texts: Iterable<string>): Map<string, number> {
  const table = bytesToUnicode();
  const encoder = new TextEncoder();
  const counts = new Map<string, number>();
  for (const text of texts) {
    for (const [piece] of text.matchAll(PIECES)) {
      const chars = Array.from(encoder.encode(piece), (b) => table[b] as string).join("");
      counts.set(chars, (counts.get(chars) ?? 0) + 1);
    }
  }
  return counts;
}

type Word = { symbols: string[]; count: number };

/**
 * Byte-level BPE training (Sennrich et al.): starting from single bytes, repeatedly merge the
 * adjacent pair with the highest count over all pieces, `merges` times or until no pair occurs
 * `minCount` times. Ties go to the pair that sorts first, so the result depends only on the counts.
 * Pair counts are recomputed from the words a merge touched, which keeps thousands of merges over a
 * few MB of text within seconds.
 */
export function trainBpe(
  counts: ReadonlyMap<string, number>,
  opts: { merges: number; minCount?: number },
): Merge[] {
  const minCount = opts.minCount ?? 2;
  const words: Word[] = [...counts].map(([piece, count]) => ({ symbols: [...piece], count }));
  const pairs = new Map<string, number>();
  const where = new Map<string, Set<number>>();
  const key = (a: string, b: string) => `${a}\u0000${b}`;
  const addPairs = (w: number, sign: 1 | -1) => {
    const { symbols, count } = words[w] as Word;
    for (let i = 0; i + 1 < symbols.length; i++) {
      const k = key(symbols[i] as string, symbols[i + 1] as string);
      pairs.set(k, (pairs.get(k) ?? 0) + sign * count);
      if (sign === 1) {
        const set = where.get(k) ?? new Set<number>();
        where.set(k, set.add(w));
      }
    }
  };
  for (let w = 0; w < words.length; w++) addPairs(w, 1);

  const merges: Merge[] = [];
  while (merges.length < opts.merges) {
    let best: string | undefined;
    let bestCount = minCount - 1;
    for (const [k, c] of pairs) {
      if (c > bestCount || (c === bestCount && best !== undefined && k < best)) {
        best = k;
        bestCount = c;
      }
    }
    if (best === undefined) break;
    const [a, b] = best.split("\u0000") as [string, string];
    merges.push([a, b]);
    for (const w of where.get(best) ?? []) {
      const word = words[w] as Word;
      addPairs(w, -1);
      const next: string[] = [];
      for (let i = 0; i < word.symbols.length; i++) {
        if (word.symbols[i] === a && word.symbols[i + 1] === b) {
          next.push(a + b);
          i++;
        } else next.push(word.symbols[i] as string);
      }
      word.symbols = next;
      addPairs(w, 1);
    }
    pairs.delete(best);
    where.delete(best);
  }
  return merges;
}
