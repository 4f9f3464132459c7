/** FTS5's bm25() constants. */
const K1 = 1.2;
const B = 0.75;

/**
 * Like FTS5's `unicode61 remove_diacritics 2` (without a Porter stage): fold case and diacritics,
 * split on non-alphanumerics.
 */
export function tokenize(text: string): string[] {
  return (
    text
      .normalize("NFD")
      .replace(/\p{M}+/gu, "")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** One column of a document, and what each of its tokens counts for (bm25()'s column weights). */
export type Bm25Column = { text: string; weight: number };

/** Documents ranked for a query: their indexes, best first, with their scores. */
export type Bm25Index = { rank(words: readonly string[], k: number): { doc: number; score: number }[] };

/**
 * BM25 in memory with FTS5's formula, for hosts with no database: score(D) =
 * Σ_t IDF(t)·f·(k1+1) / (f + k1·(1 − b + b·|D|/avgdl)), where IDF(t) = max(1e-6, ln((N − n_t + 0.5) /
 * (n_t + 0.5))), f = Σ_col weight_col·hits_col and |D| counts the tokens of all columns. The query's
 * words are tokenized alike and OR-ed, a multi-token word token by token (not as a phrase); ties go
 * to the lower index.
 */
export function bm25Index(docs: readonly (readonly Bm25Column[])[]): Bm25Index {
  const postings = new Map<string, { doc: number; tf: number }[]>();
  const lengths = docs.map((columns, doc) => {
    const tf = new Map<string, number>();
    let length = 0;
    for (const { text, weight } of columns) {
      const tokens = tokenize(text);
      length += tokens.length;
      for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + weight);
    }
    for (const [t, f] of tf) {
      const list = postings.get(t) ?? [];
      list.push({ doc, tf: f });
      postings.set(t, list);
    }
    return length;
  });
  const n = docs.length;
  const avgdl = lengths.reduce((a, b) => a + b, 0) / Math.max(n, 1);
  return {
    rank(words, k) {
      const scores = new Map<number, number>();
      for (const term of new Set(words.flatMap(tokenize))) {
        const list = postings.get(term) ?? [];
        const idf = Math.max(1e-6, Math.log((n - list.length + 0.5) / (list.length + 0.5)));
        for (const { doc, tf } of list) {
          const norm = K1 * (1 - B + (B * (lengths[doc] ?? 0)) / avgdl);
          scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (K1 + 1)) / (tf + norm));
        }
      }
      return [...scores]
        .sort((a, b) => b[1] - a[1] || a[0] - b[0])
        .slice(0, k)
        .map(([doc, score]) => ({ doc, score }));
    },
  };
}
