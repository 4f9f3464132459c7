import { bm25Index } from "../kit/bm25.js";
import { queryTerms } from "../search/fts-query.js";
import type { CatalogStore } from "./catalog-store.js";
import { SEARCH_RETURN_N } from "./catalog-store.js";
import { type Product, searchText } from "./product.js";

/**
 * The catalog in memory, for hosts with no database (an in-process `local:webshop`): the same query
 * words OR-ed and FTS5's BM25 (`kit/bm25.ts`), best first, ties by index. Words are not
 * Porter-stemmed here (the FTS5 table stems them), so `shoe` does not find `shoes`.
 */
export function memoryStore(products: readonly Product[]): CatalogStore {
  const index = bm25Index(products.map((p) => [{ text: searchText(p), weight: 1 }]));
  return {
    async search(query) {
      return { ok: true, value: index.rank(queryTerms(query), SEARCH_RETURN_N).map(({ doc }) => doc) };
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
