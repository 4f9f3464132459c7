import { sql } from "drizzle-orm";
import type { Result } from "../../shared/result.js";
import { ensureHashedRows, type HashedTable, rowidRange } from "../data/hashed-rows.js";
import type { SqlDb } from "../data/sql.js";
import { ftsMatchExpression } from "../search/fts-query.js";
import { Product, searchText } from "./product.js";

/** WebShop's `SEARCH_RETURN_N`: a search returns at most this many products. */
export const SEARCH_RETURN_N = 50;

/** A loaded catalog: its row id (the rowid range) and its size. */
export type CatalogRef = { id: number; products: number };

const CATALOGS: HashedTable = {
  registry: "webshop_catalogs",
  count: "products",
  rows: "webshop_products",
  columns: ["body", "doc"],
  noun: "catalog",
};

/**
 * Makes sure catalog `name` holds exactly the products identified by `hash`, loading them (from
 * `products()`, called only when needed) in statement-sized batches (`data/hashed-rows.ts`): each
 * product's search text, indexed, and the product as JSON.
 */
export async function ensureCatalog(
  db: SqlDb,
  name: string,
  hash: string,
  products: () => Promise<readonly Product[]> | readonly Product[],
): Promise<Result<CatalogRef>> {
  const r = await ensureHashedRows(db, CATALOGS, name, hash, products, (p) => [
    searchText(p),
    JSON.stringify(p),
  ]);
  return r.ok ? { ok: true, value: { id: r.value.id, products: r.value.count } } : r;
}

/** Search and lookup over one loaded catalog: the same SQL on D1 and on libsql. */
export type CatalogStore = {
  /**
   * BM25 top 50 (FTS5 `bm25()`, best first) for the query's words, OR-ed: the product indexes.
   * A query with no words finds nothing; no query text is ever FTS5 syntax.
   */
  search(query: string): Promise<Result<number[]>>;
  /** Products by index, in the order asked; unknown indexes are left out. */
  products(indexes: readonly number[]): Promise<Result<{ index: number; product: Product }[]>>;
};

/** A small LRU map: a catalog never changes under a store, so its searches and products can be kept. */
function lru<K, V>(size: number) {
  const map = new Map<K, V>();
  return {
    get(key: K): V | undefined {
      const v = map.get(key);
      if (v !== undefined) {
        map.delete(key);
        map.set(key, v);
      }
      return v;
    },
    set(key: K, value: V) {
      if (size <= 0) return;
      map.delete(key);
      map.set(key, value);
      if (map.size > size) map.delete(map.keys().next().value as K);
    },
  };
}

export type StoreOptions = {
  /** Searches kept per store (GRPO groups and forks repeat them); 0 turns the cache off. Default 4096. */
  searchCache?: number;
  /** Products kept per store; 0 turns the cache off. Default 20,000. */
  productCache?: number;
};

export function catalogStore(db: SqlDb, catalog: CatalogRef, options: StoreOptions = {}): CatalogStore {
  const { lo, hi } = rowidRange(catalog.id);
  const searches = lru<string, number[]>(options.searchCache ?? 4096);
  const cached = lru<number, Product>(options.productCache ?? 20_000);
  return {
    async search(query) {
      const match = ftsMatchExpression(query);
      if (match === undefined) return { ok: true, value: [] };
      const hit = searches.get(match);
      if (hit) return { ok: true, value: hit };
      try {
        const rows = await db.all<{ rowid: number }>(
          sql`SELECT rowid FROM webshop_products
              WHERE webshop_products MATCH ${match} AND rowid BETWEEN ${lo} AND ${hi}
              ORDER BY bm25(webshop_products), rowid LIMIT ${SEARCH_RETURN_N}`,
        );
        const value = rows.map((r) => Number(r.rowid) - lo);
        searches.set(match, value);
        return { ok: true, value };
      } catch (e) {
        return { ok: false, error: `search failed: ${e instanceof Error ? e.message : String(e)}` };
      }
    },
    async products(indexes) {
      const byIndex = new Map<number, Product>();
      const missing: number[] = [];
      for (const i of new Set(indexes)) {
        if (!Number.isInteger(i) || i < 0 || i >= catalog.products) continue;
        const p = cached.get(i);
        if (p) byIndex.set(i, p);
        else missing.push(i);
      }
      if (missing.length > 0) {
        const rowids = sql.join(
          missing.map((i) => sql`${lo + i}`),
          sql`, `,
        );
        const rows = await db.all<{ rowid: number; doc: string }>(
          sql`SELECT rowid, doc FROM webshop_products WHERE rowid IN (${rowids})`,
        );
        for (const r of rows) {
          const parsed = Product.safeParse(JSON.parse(r.doc));
          if (!parsed.success) return { ok: false, error: `product ${Number(r.rowid) - lo} is malformed` };
          byIndex.set(Number(r.rowid) - lo, parsed.data);
          cached.set(Number(r.rowid) - lo, parsed.data);
        }
      }
      return {
        ok: true,
        value: indexes.flatMap((index) => {
          const product = byIndex.get(index);
          return product ? [{ index, product }] : [];
        }),
      };
    },
  };
}
