import type { SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import { envDb } from "../data/db.js";
import type { EnvRuntime } from "../kit/types.js";

/**
 * Raw SQL for the FTS5 table, which drizzle's query builder can't describe: D1 through its binding,
 * libsql through drizzle's `all`/`run`/`batch`. Queries are drizzle `sql` templates either way.
 */
export type SqlDb = {
  all<T = unknown>(query: SQL): Promise<T[]>;
  run(query: SQL): Promise<unknown>;
  /** Runs the statements in one transaction (one round trip on D1, one commit on SQLite). */
  batch(queries: readonly SQL[]): Promise<unknown>;
};

/** The parts of a D1 binding used here (structural, so this file needs no Workers types). */
type D1Statement = {
  bind(...values: unknown[]): D1Statement;
  all(): Promise<{ results: unknown[] }>;
  run(): Promise<unknown>;
};
type D1Like = { prepare(query: string): D1Statement; batch(statements: D1Statement[]): Promise<unknown> };

/** drizzle's libsql database, as a host passes it in `EDGEGYM_DB`. */
type DrizzleRaw = {
  all<T>(query: SQL): Promise<T[]>;
  run(query: SQL): Promise<unknown>;
  batch(items: [unknown, ...unknown[]]): Promise<unknown>;
};

const dialect = new SQLiteAsyncDialect();

function isD1(v: unknown): v is D1Like {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as D1Like).prepare === "function" &&
    typeof (v as D1Like).batch === "function"
  );
}

function d1SqlDb(d1: D1Like): SqlDb {
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

/** The host's database for raw SQL (the D1 binding `DB`, or `EDGEGYM_DB`), or `undefined` without one. */
export function searchDb(runtime: EnvRuntime): SqlDb | undefined {
  const { DB } = runtime.bindings;
  const source = isD1(DB) ? DB : (envDb(runtime) as unknown as Partial<DrizzleRaw> | undefined);
  if (source === undefined) return undefined;
  let db = cache.get(source);
  if (!db) {
    if (isD1(source)) db = d1SqlDb(source);
    else if (
      typeof source.all === "function" &&
      typeof source.run === "function" &&
      typeof source.batch === "function"
    )
      db = drizzleSqlDb(source as DrizzleRaw);
    else return undefined;
    cache.set(source, db);
  }
  return db;
}
