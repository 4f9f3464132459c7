import { mkdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Client, createClient } from "@libsql/client";
import { drizzle, type LibSQLDatabase } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import * as schema from "../../shared/db/schema.js";

/** Where `npm run data` and `npm run envs` keep imported datasets on Node (git-ignored). */
export const DEFAULT_LOCAL_DB = ".edgegym/data.db";

const MIGRATIONS = fileURLToPath(new URL("../../migrations", import.meta.url));

/** A local SQLite database (libsql): an `EnvDb` that can also be closed. */
export type LocalDb = LibSQLDatabase<typeof schema> & { $client: Client; close(): void };

/**
 * Opens (creating if needed) the local SQLite file through libsql and applies the project's
 * migrations, so it has exactly D1's schema. `":memory:"` gives a private in-memory database.
 */
export async function openLocalDb(path: string = DEFAULT_LOCAL_DB): Promise<LocalDb> {
  let url = ":memory:";
  if (path !== ":memory:") {
    const file = resolve(path);
    await mkdir(dirname(file), { recursive: true });
    url = `file:${file}`;
  }
  const client = createClient({ url });
  const db = drizzle(client, { schema });
  await migrate(db, { migrationsFolder: MIGRATIONS });
  return Object.assign(db, { close: () => client.close() });
}
