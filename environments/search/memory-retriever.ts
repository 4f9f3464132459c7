import { queryTerms } from "./fts-query.js";
import type { Retriever, SearchHit } from "./retriever.js";
import type { Passage } from "./task.js";

/** FTS5's bm25() constants. */
const K1 = 1.2;
const B = 0.75;

/** Like FTS5's `unicode61 remove_diacritics 2`: fold case and diacritics, split on non-alphanumerics. */
export function tokenize(text: string): string[] {
  return (
    text
      .normalize("NFD")
      .replace(/\p{M}+/gu, "")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

type Posting = { doc: number; tf: number };

/**
 * BM25 in memory with FTS5's formula, for hosts with no database (in-process use of the built-in
 * world): score(D) = Σ_t IDF(t)·(f·(k1+1)) / (f + k1·(1 − b + b·|D|/avgdl)), where
 * IDF(t) = max(1e-6, ln((N − n_t + 0.5) / (n_t + 0.5))), f = Σ_col weight_col·hits_col and |D|
 * counts the tokens of all columns. Multi-token query words are scored token by token, not as phrases.
 */
export function memoryRetriever(passages: readonly Passage[], titleWeight: number): Retriever {
  const index = new Map<string, Posting[]>();
  const lengths: number[] = [];
  passages.forEach((p, doc) => {
    const title = tokenize(p.title);
    const body = tokenize(p.text);
    lengths.push(title.length + body.length);
    const tf = new Map<string, number>();
    for (const t of title) tf.set(t, (tf.get(t) ?? 0) + titleWeight);
    for (const t of body) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, f] of tf) {
      const list = index.get(t) ?? [];
      list.push({ doc, tf: f });
      index.set(t, list);
    }
  });
  const n = passages.length;
  const avgdl = lengths.reduce((a, b) => a + b, 0) / Math.max(n, 1);

  return {
    async search(query, k) {
      const scores = new Map<number, number>();
      const terms = new Set(queryTerms(query).flatMap(tokenize));
      for (const term of terms) {
        const postings = index.get(term) ?? [];
        const idf = Math.max(1e-6, Math.log((n - postings.length + 0.5) / (postings.length + 0.5)));
        for (const { doc, tf } of postings) {
          const norm = K1 * (1 - B + (B * (lengths[doc] ?? 0)) / avgdl);
          scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (K1 + 1)) / (tf + norm));
        }
      }
      const hits = [...scores]
        .sort((a, b) => b[1] - a[1] || a[0] - b[0])
        .slice(0, k)
        .map(([doc, score]): SearchHit => ({ ...(passages[doc] as Passage), score }));
      return { ok: true, value: hits };
    },
  };
}
