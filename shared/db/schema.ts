import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The one drizzle schema of edgegym: D1 on Workers, a local SQLite file on Node. Sections below are
 * grouped by owner (environment data, hub registry). `npm run db:generate` turns changes into SQL.
 */

/** Imported task datasets (GSM8K, HotpotQA, WebShop goals): one row per task, payload as JSON. */
export const datasetTasks = sqliteTable(
  "dataset_tasks",
  {
    dataset: text("dataset").notNull(),
    split: text("split").notNull(),
    idx: integer("idx").notNull(),
    payload: text("payload", { mode: "json" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.dataset, t.split, t.idx] })],
);

/** One row per imported dataset: its identity (a content hash) is part of the env's content hash. */
export const datasets = sqliteTable("datasets", {
  name: text("name").primaryKey(),
  hash: text("hash").notNull(),
  importedAt: integer("imported_at", { mode: "timestamp_ms" }).notNull(),
});

/** One row per imported split: its task count (read without scanning) and the hash of its tasks. */
export const datasetSplits = sqliteTable(
  "dataset_splits",
  {
    dataset: text("dataset").notNull(),
    split: text("split").notNull(),
    count: integer("count").notNull(),
    hash: text("hash").notNull(),
  },
  (t) => [primaryKey({ columns: [t.dataset, t.split] })],
);

/**
 * Search corpora (the search env's passage collections). Passages live in the FTS5 table
 * `search_passages` (a custom migration, since drizzle can't express virtual tables) at rowids
 * `id * 2^32 + i`, so reloading a corpus is idempotent and a search filters one corpus by rowid range.
 */
export const searchCorpora = sqliteTable("search_corpora", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull().unique(),
  /** Identity of the loaded passages; a different hash means reload. */
  hash: text("hash").notNull(),
  /** Passages loaded; null until loading has finished. */
  passages: integer("passages"),
});
