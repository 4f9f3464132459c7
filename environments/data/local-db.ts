import { mkdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Client, createClient } from "@libsql/client";
import { drizzle, type LibSQLDatabase } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import * as schema from "../../shared/db/schema.js";

/** Where `npm run data` and `npm run envs` keep imported datasets on Node (git-ignored). */
export const DEFAULT_LOCAL_DB = ".edgegym/data.db";

/** The local datasets' file: `EDGEGYM_DATA_DB` when set (and not empty), else `.edgegym/data.db`. */
export function localDbPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.EDGEGYM_DATA_DB || DEFAULT_LOCAL_DB;
}

const MIGRATIONS = fileURLToPath(new URL("../../migrations", import.meta.url));

/**
 * How long a statement waits for another process's write lock (an import, a server migrating the
 * same new file) before SQLITE_BUSY. SQLite's default is not to wait at all.
 */
const BUSY_TIMEOUT_MS = 30_000;

/**
 * Applies the migrations, once more if the first try fails: two processes opening a new file can
 * both read "nothing applied" before either commits, and the later one then fails on a table the
 * other made. The second try re-reads what is applied, so it applies nothing twice.
 */
async function migrateShared(db: LibSQLDatabase<typeof schema>): Promise<void> {
  try {
    await migrate(db, { migrationsFolder: MIGRATIONS });
  } catch {
    await migrate(db, { migrationsFolder: MIGRATIONS });
  }
}

/** A local SQLite database (libsql): an `EnvDb` that can also be closed. */
export type LocalDb = LibSQLDatabase<typeof schema> & { $client: Client; close(): void };

/**
 * Opens (creating if needed) the local SQLite file through libsql and applies the project's
 * migrations, so it has exactly D1's schema. `":memory:"` gives a private in-memory database.
 */
export async function openLocalDb(path: string = localDbPath()): Promise<LocalDb> {
  let url = ":memory:";
  if (path !== ":memory:") {
    const file = resolve(path);
    await mkdir(dirname(file), { recursive: true });
    url = `file:${file}`;
  }
  const client = createClient({ url, timeout: BUSY_TIMEOUT_MS });
  const db = drizzle(client, { schema });
  await migrateShared(db);
  return Object.assign(db, { close: () => client.close() });
}
