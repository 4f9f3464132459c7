import type { SQL } from "drizzle-orm";
import type { drizzle } from "drizzle-orm/d1";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import type { EnvRuntime } from "../kit/types.js";

/**
 * Raw SQL over the environments' database, for what drizzle's query builder can't describe (the
 * search and WebShop FTS5 tables). D1 through its binding, libsql through drizzle's `all`/`run`/
 * `batch`; queries are drizzle `sql` templates either way.
 */
export type SqlDb = {
  all<T = unknown>(query: SQL): Promise<T[]>;
  run(query: SQL): Promise<unknown>;
  /** Runs the statements in one transaction (one round trip on D1, one commit on SQLite). */
  batch(queries: readonly SQL[]): Promise<unknown>;
};

/** A D1 binding, as drizzle's D1 driver takes it. */
export type D1Binding = Parameters<typeof drizzle>[0];

/** A D1 binding is told from other values by its `prepare` and `batch` methods. */
export function isD1(binding: unknown): binding is D1Binding {
  if (typeof binding !== "object" || binding === null) return false;
  const b = binding as Record<string, unknown>;
  return typeof b.prepare === "function" && typeof b.batch === "function";
}

/** drizzle's libsql database, as a Node host passes it in `EDGEGYM_DB`. */
type DrizzleRaw = {
  all<T>(query: SQL): Promise<T[]>;
  run(query: SQL): Promise<unknown>;
  batch(items: [unknown, ...unknown[]]): Promise<unknown>;
};

const isDrizzleRaw = (v: unknown): v is DrizzleRaw =>
  typeof v === "object" &&
  v !== null &&
  typeof (v as DrizzleRaw).all === "function" &&
  typeof (v as DrizzleRaw).run === "function" &&
  typeof (v as DrizzleRaw).batch === "function";

const dialect = new SQLiteAsyncDialect();

function d1SqlDb(d1: D1Binding): SqlDb {
  const prepare = (query: SQL) => {
    const { sql, params } = dialect.sqlToQuery(query);
    return d1.prepare(sql).bind(...params);
  };
  return {
    all: async <T>(query: SQL) => (await prepare(query).all()).results as T[],
    run: (query) => prepare(query).run(),
    batch: (queries) => d1.batch(queries.map(prepare)),
  };
}

function drizzleSqlDb(db: DrizzleRaw): SqlDb {
  return {
    all: (query) => db.all(query),
    run: (query) => db.run(query),
    batch: async (queries) => {
      const [first, ...rest] = queries.map((q) => db.run(q));
      if (first !== undefined) await db.batch([first, ...rest]);
    },
  };
}

const cache = new WeakMap<object, SqlDb>();

/**
 * The host's database for raw SQL: the D1 binding `DB` (workerd), or the drizzle database a Node
 * host passes as `EDGEGYM_DB`; `undefined` without one. Cached per binding.
 */
export function envSql(runtime: EnvRuntime): SqlDb | undefined {
  const { DB, EDGEGYM_DB } = runtime.bindings;
  const source = isD1(DB) ? DB : isDrizzleRaw(EDGEGYM_DB) ? EDGEGYM_DB : undefined;
  if (source === undefined) return undefined;
  let db = cache.get(source);
  if (!db) {
    db = isD1(source) ? d1SqlDb(source) : drizzleSqlDb(source);
    cache.set(source, db);
  }
  return db;
}
