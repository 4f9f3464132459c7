import { z } from "@hono/zod-openapi";
import { EnvIdString, EnvRefString } from "./env-ref.js";
import { Problem } from "./errors.js";
import { DisplayName } from "./registry.js";

/**
 * The wire shapes of the hub's evaluation API (`/v1/evals`), shared by the hub that serves them and
 * the trainer that calls them.
 */

export const MAX_EVAL_TASKS = 5_000;
export const MAX_EPISODE_BATCH = 256;

/** POST /v1/evals: the hub fixes the task set; the model's name is what leaderboards show. */
export const CreateEval = z.object({
  env: EnvRefString,
  split: z.string().min(1).max(64),
  tasks: z.union([
    z.object({ count: z.number().int().min(1).max(MAX_EVAL_TASKS) }),
    z.object({ indices: z.array(z.number().int().nonnegative()).min(1).max(MAX_EVAL_TASKS) }),
  ]),
  model: z.object({ name: DisplayName }).catchall(z.unknown()),
  public: z.boolean().optional(),
});
export type CreateEval = z.infer<typeof CreateEval>;

/** A finished run's aggregate over its tasks, from verified receipts only. */
export const EvalAggregate = z.object({
  n: z.number(),
  verified: z.number(),
  meanReturn: z.number(),
  successRate: z.number(),
  stderr: z.number(),
  meanSteps: z.number().nullable(),
});
export type EvalAggregate = z.infer<typeof EvalAggregate>;

export const EvalRun = z
  .object({
    id: z.string(),
    team: z.string(),
    env: z.string(),
    version: z.string(),
    contentHash: z.string(),
    split: z.string(),
    tasks: z.array(z.number()),
    model: z.record(z.string(), z.unknown()),
    public: z.boolean(),
    status: z.enum(["running", "finished"]),
    aggregate: EvalAggregate.nullable(),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .openapi("EvalRun");
export type EvalRun = z.infer<typeof EvalRun>;

/** POST /v1/evals/{id}/episodes: receipts of finished episodes, each checked on its own. */
export const EpisodeUpload = z.object({
  episodes: z
    .array(
      z.object({
        episodeId: z.string().max(200),
        receipt: z.string().max(8_192),
        trajectory: z.unknown().optional(),
      }),
    )
    .min(1)
    .max(MAX_EPISODE_BATCH),
});

export const EpisodeResults = z.object({
  results: z.array(
    z.union([
      z.object({ episodeId: z.string(), ok: z.literal(true) }),
      z.object({ episodeId: z.string(), ok: z.literal(false), error: Problem }),
    ]),
  ),
});

export type EpisodeResults = z.infer<typeof EpisodeResults>;

/** The run's id in a route path. */
export const RunId = z.object({ id: z.string().max(64) });

/** GET /v1/evals?env=owner/name[@version]: runs of an env, newest first. */
export const ListEvalsQuery = z.object({
  env: EnvIdString,
  cursor: z.string().max(64).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
export const EvalList = z.object({ runs: z.array(EvalRun), nextCursor: z.string().nullable() });
export type EvalList = z.infer<typeof EvalList>;

/**
 * POST /v1/evals/{id}/sessions: one task's session. The reply is the protocol's `SessionResponse`, its
 * token replaced by a hub handle.
 */
export const EvalSessionRequest = z.object({ index: z.number().int().nonnegative() });

/** GET /v1/envs/{owner}/{name}/leaderboard: the best finished run per model. */
export const LeaderboardEntry = EvalAggregate.openapi("Aggregate").extend({
  rank: z.number(),
  model: z.string(),
  runId: z.string(),
  team: z.string(),
  contentHash: z.string(),
  finishedAt: z.string(),
});
export const Leaderboard = z
  .object({
    env: z.string(),
    version: z.string(),
    split: z.string(),
    minTasks: z.number(),
    entries: z.array(LeaderboardEntry),
  })
  .openapi("Leaderboard");
export type Leaderboard = z.infer<typeof Leaderboard>;
export const LeaderboardQuery = z.object({
  version: z.string().max(128).default("latest"),
  split: z.string().max(64).default("test"),
  minTasks: z.coerce.number().int().min(1).optional(),
});

/** GET /v1/evals/{id}/episodes: a run's stored episodes in task order. */
export const StoredEpisode = z
  .object({
    episodeId: z.string(),
    taskIndex: z.number(),
    return: z.number(),
    finalReward: z.number(),
    steps: z.number(),
    receipt: z.string(),
    receiptStatus: z.union([
      z.object({ verified: z.literal(true) }),
      z.object({ verified: z.literal(false), error: z.string() }),
    ]),
    trajectory: z
      .unknown()
      .openapi({ description: "As uploaded; see shared/transcript.ts for the shape the web hub renders" }),
    createdAt: z.string(),
  })
  .openapi("StoredEpisode");
export const EpisodePage = z.object({
  episodes: z.array(StoredEpisode),
  total: z.number(),
  nextTask: z
    .number()
    .nullable()
    .openapi({ description: "Pass as fromTask for the next page; null at the end" }),
});
export const EpisodePageQuery = z.object({
  fromTask: z.coerce.number().int().nonnegative().default(0),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
