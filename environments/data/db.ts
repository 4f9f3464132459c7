import { drizzle } from "drizzle-orm/d1";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import * as schema from "../../shared/db/schema.js";
import type { EnvRuntime } from "../kit/types.js";
import { isD1 } from "./sql.js";

/**
 * The environments' database: drizzle over the one schema, async SQLite. D1 on workerd, libsql on Node
 * (`openLocalDb`). Both drivers share the query builder and an atomic `batch`.
 */
export type EnvDb = Pick<LibSQLDatabase<typeof schema>, "select" | "insert" | "delete" | "batch">;

const cache = new WeakMap<object, EnvDb>();

/**
 * The database a deployment gives its environments: `drizzle(DB)` for a D1 binding `DB` (workerd), or
 * `EDGEGYM_DB` when the host passes a ready drizzle database (Node). `undefined` when there is none.
 * Cached per binding, so every request of a worker shares one drizzle instance.
 */
export function envDb(runtime: EnvRuntime): EnvDb | undefined {
  const { DB, EDGEGYM_DB } = runtime.bindings;
  if (isD1(DB)) {
    let db = cache.get(DB);
    if (!db) {
      // Same query builder; only the raw `run` result types differ, and environments never read them.
      db = drizzle(DB, { schema }) as unknown as EnvDb;
      cache.set(DB, db);
    }
    return db;
  }
  if (typeof EDGEGYM_DB === "object" && EDGEGYM_DB !== null && "select" in EDGEGYM_DB) {
    return EDGEGYM_DB as EnvDb;
  }
  return undefined;
}
