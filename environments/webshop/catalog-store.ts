import { sql } from "drizzle-orm";
import type { Result } from "../../shared/result.js";
import type { SqlDb } from "../data/sql.js";
import { ftsMatchExpression } from "../search/fts-query.js";
import { Product, searchText } from "./product.js";

/** Rowids of catalog `id` are `id * 2^32 + i`: one range per catalog, exact in a double up to id 2^20. */
const SPAN = 2 ** 32;
/** D1 binds at most 100 parameters per statement: 33 rows of (rowid, body, doc). */
const ROWS_PER_INSERT = 33;
/** Characters per INSERT, well under D1's 100 KB statement limit. */
const CHARS_PER_INSERT = 60_000;
/** WebShop's `SEARCH_RETURN_N`: a search returns at most this many products. */
export const SEARCH_RETURN_N = 50;

/** A loaded catalog: its row id (the rowid range) and its size. */
export type CatalogRef = { id: number; products: number };

type CatalogRow = { id: number; hash: string; products: number | null };

async function catalogRow(db: SqlDb, name: string): Promise<CatalogRow | undefined> {
  const [row] = await db.all<CatalogRow>(
    sql`SELECT id, hash, products FROM webshop_catalogs WHERE name = ${name}`,
  );
  return row;
}

type Row = { rowid: number; body: string; doc: string };

function groups(rows: readonly Row[]): Row[][] {
  const out: Row[][] = [];
  let size = 0;
  for (const row of rows) {
    const chars = row.body.length + row.doc.length;
    const last = out.at(-1);
    if (!last || last.length >= ROWS_PER_INSERT || size + chars > CHARS_PER_INSERT) {
      out.push([row]);
      size = chars;
    } else {
      last.push(row);
      size += chars;
    }
  }
  return out;
}

async function load(db: SqlDb, row: CatalogRow, hash: string, products: readonly Product[]) {
  const base = row.id * SPAN;
  if (row.hash !== hash || row.products !== null) {
    await db.run(sql`UPDATE webshop_catalogs SET hash = ${hash}, products = NULL WHERE id = ${row.id}`);
    await db.run(sql`DELETE FROM webshop_products WHERE rowid BETWEEN ${base} AND ${base + SPAN - 1}`);
  }
  const rows = products.map((p, i) => ({ rowid: base + i, body: searchText(p), doc: JSON.stringify(p) }));
  for (const g of groups(rows)) {
    const values = g.map((r) => sql`(${r.rowid}, ${r.body}, ${r.doc})`);
    // REPLACE keeps two loads running at once (two isolates) idempotent: same rowids, same rows.
    await db.run(
      sql`INSERT OR REPLACE INTO webshop_products (rowid, body, doc) VALUES ${sql.join(values, sql`, `)}`,
    );
  }
  await db.run(
    sql`UPDATE webshop_catalogs SET products = ${products.length} WHERE id = ${row.id} AND hash = ${hash}`,
  );
}

/**
 * Makes sure catalog `name` holds exactly the products identified by `hash`, loading them (from
 * `products()`, called only when needed) in statement-sized batches. A finished catalog with the same
 * hash is left alone; a different hash replaces it.
 */
export async function ensureCatalog(
  db: SqlDb,
  name: string,
  hash: string,
  products: () => Promise<readonly Product[]> | readonly Product[],
): Promise<Result<CatalogRef>> {
  let row = await catalogRow(db, name);
  if (row && row.hash === hash && row.products !== null) {
    return { ok: true, value: { id: row.id, products: row.products } };
  }
  if (!row) {
    await db.run(
      sql`INSERT INTO webshop_catalogs (name, hash) VALUES (${name}, ${hash}) ON CONFLICT (name) DO NOTHING`,
    );
    row = await catalogRow(db, name);
    if (!row) return { ok: false, error: `catalog "${name}" could not be registered` };
  }
  if (row.id >= 2 ** 20) return { ok: false, error: `catalog id ${row.id} is beyond the rowid range` };
  const items = await products();
  await load(db, row, hash, items);
  return { ok: true, value: { id: row.id, products: items.length } };
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
  const lo = catalog.id * SPAN;
  const hi = lo + SPAN - 1;
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
