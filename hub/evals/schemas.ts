import { z } from "@hono/zod-openapi";
import { Problem } from "../../shared/errors.js";
import { SessionResponse } from "../../shared/protocol.js";

export const MAX_EVAL_TASKS = 5_000;
export const MAX_EPISODE_BATCH = 256;
/** Trajectories are kept for inspection but bounded, so a client can't fill the database. */
export const MAX_TRAJECTORY_BYTES = 64 * 1024;

export const CreateEval = z.object({
  env: z
    .string()
    .regex(/^[a-z0-9-]{1,64}\/[a-z0-9-]{1,64}@[0-9A-Za-z.+-]{1,128}$/, "must be owner/name@version"),
  split: z.string().min(1).max(64),
  tasks: z.union([
    z.object({ count: z.number().int().min(1).max(MAX_EVAL_TASKS) }),
    z.object({ indices: z.array(z.number().int().nonnegative()).min(1).max(MAX_EVAL_TASKS) }),
  ]),
  model: z.object({ name: z.string().min(1).max(200) }).catchall(z.unknown()),
  public: z.boolean().optional(),
});

export const AggregateSchema = z
  .object({
    n: z.number(),
    verified: z.number(),
    meanReturn: z.number(),
    successRate: z.number(),
    stderr: z.number(),
    meanSteps: z.number().nullable(),
  })
  .openapi("Aggregate");

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
    aggregate: AggregateSchema.nullable(),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .openapi("EvalRun");

export const EvalSessionRequest = z.object({ index: z.number().int().nonnegative() });
export const EvalSession = SessionResponse.openapi("EvalSession");

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

export const ListEvalsQuery = z.object({
  env: z.string().regex(/^[a-z0-9-]{1,64}\/[a-z0-9-]{1,64}(@[0-9A-Za-z.+-]{1,128})?$/),
  cursor: z.string().max(64).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
export const EvalList = z.object({ runs: z.array(EvalRun), nextCursor: z.string().nullable() });
