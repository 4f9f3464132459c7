import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

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

/**
 * WebShop product catalogs (the built-in generated one, an imported one). Products live in the FTS5
 * table `webshop_products` (custom migration: `body` is the indexed search text, `doc` the product as
 * JSON, unindexed) at rowids `id * 2^32 + i`, so one search filters one catalog by rowid range.
 */
export const webshopCatalogs = sqliteTable("webshop_catalogs", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull().unique(),
  /** Identity of the loaded products; a different hash means reload. */
  hash: text("hash").notNull(),
  /** Products loaded; null until loading has finished. */
  products: integer("products"),
});

/* ---------------------------------------------------------------------------------------------
 * Hub: teams, tokens, the environment registry, sharing and the evaluation API. Timestamps are ms.
 * ------------------------------------------------------------------------------------------- */

/** A team owns envs, tokens and eval runs; its name is the `owner` in `owner/name`. */
export const hubTeams = sqliteTable("hub_teams", {
  name: text("name").primaryKey(),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
});

/** API tokens: only the SHA-256 of the secret is stored; the secret is shown once at creation. */
export const hubTokens = sqliteTable(
  "hub_tokens",
  {
    id: text("id").primaryKey(),
    team: text("team")
      .notNull()
      .references(() => hubTeams.name),
    hash: text("hash").notNull(),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }),
    revokedAt: integer("revoked_at", { mode: "timestamp_ms" }),
    lastUsedAt: integer("last_used_at", { mode: "timestamp_ms" }),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [uniqueIndex("hub_tokens_hash").on(t.hash), index("hub_tokens_team").on(t.team)],
);

/**
 * Web sign-in sessions: the cookie holds a random secret of its own (never the API token), stored
 * only as its SHA-256. A session lasts hours, ends at sign-out (the row is deleted) and ends with the
 * token that opened it (revoked or expired).
 */
export const hubWebSessions = sqliteTable(
  "hub_web_sessions",
  {
    hash: text("hash").primaryKey(),
    tokenId: text("token_id")
      .notNull()
      .references(() => hubTokens.id),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("hub_web_sessions_expires").on(t.expiresAt)],
);

/** An environment `owner/name`; `id` is also the rowid the FTS5 index `hub_envs_fts` points at. */
export const hubEnvs = sqliteTable(
  "hub_envs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    owner: text("owner")
      .notNull()
      .references(() => hubTeams.name),
    name: text("name").notNull(),
    visibility: text("visibility", { enum: ["public", "private"] }).notNull(),
    description: text("description").notNull().default(""),
    /** Space-separated, so FTS5 tokenizes them and `tag=` matches a whole word. */
    tags: text("tags").notNull().default(""),
    readme: text("readme").notNull().default(""),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [
    uniqueIndex("hub_envs_owner_name").on(t.owner, t.name),
    index("hub_envs_visibility").on(t.visibility),
  ],
);

/** Immutable published versions; the primary key makes concurrent publishes of one version race to one winner. */
export const hubVersions = sqliteTable(
  "hub_versions",
  {
    envId: integer("env_id")
      .notNull()
      .references(() => hubEnvs.id),
    version: text("version").notNull(),
    prerelease: integer("prerelease", { mode: "boolean" }).notNull(),
    endpoint: text("endpoint"),
    builtin: text("builtin"),
    /** A hosted version's bundle (its bytes are in R2 under this hash; docs/hub.md, "Hosted environments"). */
    bundleHash: text("bundle_hash"),
    /** What readers are told about a hosted version's bundle (`HostedInfo`); null for the others. */
    hosted: text("hosted", { mode: "json" }),
    manifest: text("manifest", { mode: "json" }).notNull(),
    publicKey: text("public_key", { mode: "json" }).notNull(),
    contentHash: text("content_hash").notNull(),
    yankedAt: integer("yanked_at", { mode: "timestamp_ms" }),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.envId, t.version] })],
);

/**
 * A hosted version's own secrets (session key and signing key), generated by the hub at publish and
 * kept apart from `hub_versions` so no query for versions reads them. Sealed under a key derived
 * from the hub's `EDGEGYM_SESSION_KEY`.
 */
export const hubHostedSecrets = sqliteTable(
  "hub_hosted_secrets",
  {
    envId: integer("env_id")
      .notNull()
      .references(() => hubEnvs.id),
    version: text("version").notNull(),
    sealed: text("sealed").notNull(),
  },
  (t) => [primaryKey({ columns: [t.envId, t.version] })],
);

/** A private env shared with another team, with read or publish rights. */
export const hubShares = sqliteTable(
  "hub_shares",
  {
    envId: integer("env_id")
      .notNull()
      .references(() => hubEnvs.id),
    team: text("team")
      .notNull()
      .references(() => hubTeams.name),
    role: text("role", { enum: ["read", "publish"] }).notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.envId, t.team] }), index("hub_shares_team").on(t.team)],
);

/** An evaluation run: its task set is fixed at creation, its aggregate at finish. */
export const hubEvalRuns = sqliteTable(
  "hub_eval_runs",
  {
    id: text("id").primaryKey(),
    team: text("team")
      .notNull()
      .references(() => hubTeams.name),
    envId: integer("env_id")
      .notNull()
      .references(() => hubEnvs.id),
    version: text("version").notNull(),
    contentHash: text("content_hash").notNull(),
    split: text("split").notNull(),
    tasks: text("tasks", { mode: "json" }).$type<number[]>().notNull(),
    modelName: text("model_name").notNull(),
    model: text("model", { mode: "json" }).notNull(),
    public: integer("public", { mode: "boolean" }).notNull(),
    status: text("status", { enum: ["running", "finished"] }).notNull(),
    aggregate: text("aggregate", { mode: "json" }),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    finishedAt: integer("finished_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("hub_eval_runs_env").on(t.envId, t.version, t.split, t.status)],
);

/** One hub-issued session per task of a run; asking again returns the stored start. */
export const hubEvalTasks = sqliteTable(
  "hub_eval_tasks",
  {
    runId: text("run_id")
      .notNull()
      .references(() => hubEvalRuns.id),
    taskIndex: integer("task_index").notNull(),
    episodeId: text("episode_id").notNull(),
    start: text("start", { mode: "json" }).notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.runId, t.taskIndex] }),
    uniqueIndex("hub_eval_tasks_episode").on(t.episodeId),
  ],
);

/**
 * One row per step taken in an evaluation episode through the hub: the primary key lets exactly one
 * request take step `n` of an episode, so a hub-issued session can't be forked.
 */
export const hubEvalSteps = sqliteTable(
  "hub_eval_steps",
  {
    episodeId: text("episode_id").notNull(),
    step: integer("step").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.episodeId, t.step] })],
);

/** A verified episode: at most one per issued episodeId, so a receipt can't be counted twice. */
export const hubEpisodes = sqliteTable(
  "hub_episodes",
  {
    episodeId: text("episode_id").primaryKey(),
    runId: text("run_id")
      .notNull()
      .references(() => hubEvalRuns.id),
    taskIndex: integer("task_index").notNull(),
    return: real("return").notNull(),
    finalReward: real("final_reward").notNull(),
    steps: integer("steps").notNull(),
    receipt: text("receipt").notNull(),
    trajectory: text("trajectory", { mode: "json" }),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("hub_episodes_run").on(t.runId)],
);
