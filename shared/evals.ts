import { z } from "zod";
import { Problem } from "./errors.js";

/**
 * The wire shapes of the hub's evaluation API (`/v1/evals`), shared by the hub that serves them and
 * the trainer that calls them.
 */

export const MAX_EVAL_TASKS = 5_000;
export const MAX_EPISODE_BATCH = 256;

/** A published env version as `owner/name@version`. */
export const EnvRef = z
  .string()
  .regex(/^[a-z0-9-]{1,64}\/[a-z0-9-]{1,64}@[0-9A-Za-z.+-]{1,128}$/, "must be owner/name@version");

/** POST /v1/evals: the hub fixes the task set; the model's name is what leaderboards show. */
export const CreateEval = z.object({
  env: EnvRef,
  split: z.string().min(1).max(64),
  tasks: z.union([
    z.object({ count: z.number().int().min(1).max(MAX_EVAL_TASKS) }),
    z.object({ indices: z.array(z.number().int().nonnegative()).min(1).max(MAX_EVAL_TASKS) }),
  ]),
  model: z.object({ name: z.string().min(1).max(200) }).catchall(z.unknown()),
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

export const EvalRun = z.object({
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
});
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
