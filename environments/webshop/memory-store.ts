import { queryTerms } from "../search/fts-query.js";
import type { CatalogStore } from "./catalog-store.js";
import { SEARCH_RETURN_N } from "./catalog-store.js";
import { type Product, searchText } from "./product.js";

/** FTS5's bm25() constants. */
const K1 = 1.2;
const B = 0.75;

/** Like FTS5's `unicode61 remove_diacritics 2` (without its Porter stage): fold case and accents, split on non-alphanumerics. */
function tokenize(text: string): string[] {
  return (
    text
      .normalize("NFD")
      .replace(/\p{M}+/gu, "")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/**
 * The catalog in memory, for hosts with no database (an in-process `local:webshop`): the same query
 * words OR-ed and FTS5's BM25, score(D) = Σ_t IDF(t)·f·(k1+1) / (f + k1·(1 − b + b·|D|/avgdl)) with
 * IDF(t) = max(1e-6, ln((N − n_t + 0.5) / (n_t + 0.5))), best first, ties by index. Words are not
 * Porter-stemmed here (the FTS5 table stems them), so `shoe` does not find `shoes`.
 */
export function memoryStore(products: readonly Product[]): CatalogStore {
  const postings = new Map<string, { doc: number; tf: number }[]>();
  const lengths = products.map((p, doc) => {
    const tokens = tokenize(searchText(p));
    const counts = new Map<string, number>();
    for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
    for (const [t, tf] of counts) {
      const list = postings.get(t) ?? [];
      list.push({ doc, tf });
      postings.set(t, list);
    }
    return tokens.length;
  });
  const n = products.length;
  const avgdl = lengths.reduce((a, b) => a + b, 0) / Math.max(n, 1);
  return {
    async search(query) {
      const scores = new Map<number, number>();
      for (const term of new Set(queryTerms(query).flatMap(tokenize))) {
        const list = postings.get(term) ?? [];
        const idf = Math.max(1e-6, Math.log((n - list.length + 0.5) / (list.length + 0.5)));
        for (const { doc, tf } of list) {
          const norm = K1 * (1 - B + (B * (lengths[doc] ?? 0)) / avgdl);
          scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (K1 + 1)) / (tf + norm));
        }
      }
      const ranked = [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, SEARCH_RETURN_N);
      return { ok: true, value: ranked.map(([doc]) => doc) };
    },
    async products(indexes) {
      return {
        ok: true,
        value: indexes.flatMap((index) => {
          const product = products[index];
          return product ? [{ index, product }] : [];
        }),
      };
    },
  };
}
