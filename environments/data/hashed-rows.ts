import { type SQL, sql } from "drizzle-orm";
import type { Result } from "../../shared/result.js";
import type { SqlDb } from "./sql.js";

/** Rowids of set `id` are `id * 2^32 + i`: one range per set, exact in a double up to id 2^20. */
const SPAN = 2 ** 32;
/** D1 binds at most 100 parameters per statement: 33 rows of (rowid, two columns). */
const ROWS_PER_INSERT = 33;
/** Characters per INSERT, well under D1's 100 KB statement limit. */
const CHARS_PER_INSERT = 60_000;
/** INSERT statements per batch: a few MB of SQL per round trip. */
const INSERTS_PER_BATCH = 50;

/**
 * A table of named, hashed sets of rows (a search corpus, a WebShop catalog): `registry` holds each
 * set's `id`, `name`, `hash` and row count (`count`, NULL until a load finishes); `rows` holds the
 * rows, two text columns each, at the set's rowid range.
 */
export type HashedTable = {
  registry: string;
  count: string;
  rows: string;
  columns: readonly [string, string];
  /** What a set is called in errors ("corpus", "catalog"). */
  noun: string;
};

/** A loaded set: its id (the rowid range) and its number of rows. */
export type LoadedSet = { id: number; count: number };

/** The first and last rowid of set `id`. */
export function rowidRange(id: number): { lo: number; hi: number } {
  return { lo: id * SPAN, hi: id * SPAN + SPAN - 1 };
}

type SetRow = { id: number; hash: string; count: number | null };

async function setRow(db: SqlDb, table: HashedTable, name: string): Promise<SetRow | undefined> {
  const [row] = await db.all<SetRow>(
    sql`SELECT id, hash, ${sql.identifier(table.count)} AS count FROM ${sql.identifier(table.registry)} WHERE name = ${name}`,
  );
  return row;
}

/** Groups of rows that each fit one INSERT statement. */
function insertGroups(
  rows: readonly (readonly [string, string])[],
): { start: number; rows: (readonly [string, string])[] }[] {
  const groups: { start: number; rows: (readonly [string, string])[] }[] = [];
  let size = 0;
  rows.forEach((r, i) => {
    const chars = r[0].length + r[1].length;
    const last = groups.at(-1);
    if (!last || last.rows.length >= ROWS_PER_INSERT || size + chars > CHARS_PER_INSERT) {
      groups.push({ start: i, rows: [r] });
      size = chars;
    } else {
      last.rows.push(r);
      size += chars;
    }
  });
  return groups;
}

async function load(
  db: SqlDb,
  table: HashedTable,
  set: SetRow,
  hash: string,
  rows: readonly (readonly [string, string])[],
) {
  const registry = sql.identifier(table.registry);
  const count = sql.identifier(table.count);
  const target = sql.identifier(table.rows);
  const { lo, hi } = rowidRange(set.id);
  if (set.hash !== hash || set.count !== null) {
    await db.run(sql`UPDATE ${registry} SET hash = ${hash}, ${count} = NULL WHERE id = ${set.id}`);
    await db.run(sql`DELETE FROM ${target} WHERE rowid BETWEEN ${lo} AND ${hi}`);
  }
  const columns = sql.join(
    table.columns.map((c) => sql.identifier(c)),
    sql`, `,
  );
  const inserts: SQL[] = insertGroups(rows).map((g) => {
    const values = g.rows.map((r, j) => sql`(${lo + g.start + j}, ${r[0]}, ${r[1]})`);
    // REPLACE keeps a load that runs twice at once (two isolates, two requests) idempotent: same rowids, same rows.
    return sql`INSERT OR REPLACE INTO ${target} (rowid, ${columns}) VALUES ${sql.join(values, sql`, `)}`;
  });
  for (let i = 0; i < inserts.length; i += INSERTS_PER_BATCH) {
    await db.batch(inserts.slice(i, i + INSERTS_PER_BATCH));
  }
  await db.run(sql`UPDATE ${registry} SET ${count} = ${rows.length} WHERE id = ${set.id} AND hash = ${hash}`);
}

/**
 * Makes sure set `name` of `table` holds exactly the items identified by `hash`, loading them (from
 * `items()`, called only when needed; `row` gives each item's two columns) in statement-sized
 * batches. Idempotent: a finished set with the same hash is left alone; a different hash replaces it.
 */
export async function ensureHashedRows<Item>(
  db: SqlDb,
  table: HashedTable,
  name: string,
  hash: string,
  items: () => Promise<readonly Item[]> | readonly Item[],
  row: (item: Item) => readonly [string, string],
): Promise<Result<LoadedSet>> {
  let set = await setRow(db, table, name);
  if (set && set.hash === hash && set.count !== null)
    return { ok: true, value: { id: set.id, count: set.count } };
  if (!set) {
    await db.run(
      sql`INSERT INTO ${sql.identifier(table.registry)} (name, hash) VALUES (${name}, ${hash}) ON CONFLICT (name) DO NOTHING`,
    );
    set = await setRow(db, table, name);
    if (!set) return { ok: false, error: `${table.noun} "${name}" could not be registered` };
  }
  if (set.id >= 2 ** 20) return { ok: false, error: `${table.noun} id ${set.id} is beyond the rowid range` };
  const rows = (await items()).map(row);
  await load(db, table, set, hash, rows);
  return { ok: true, value: { id: set.id, count: rows.length } };
}
