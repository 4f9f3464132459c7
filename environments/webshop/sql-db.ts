import type { SQL } from "drizzle-orm";

/**
 * The raw-SQL half of a drizzle async SQLite database (D1 and libsql both have it): the FTS5 table is
 * beyond drizzle's query builder, so the catalog store speaks `sql` templates through this.
 */
export type SqlDb = {
  all<T = unknown>(query: SQL): Promise<T[]>;
  run(query: SQL): Promise<unknown>;
};
