import * as tf from "@tensorflow/tfjs-core";
import { type Pass, rowsOf } from "../model/passes.js";
import type { ModelConfig } from "../model/types.js";
import type { PolicyPool } from "./policy-pool.js";
import { forwardTask, type ShardModels } from "./shard-task.js";
import { shardPasses } from "./shards.js";

/** Per-position results of rows in the row layout `[R, width]` (zero beyond each pass's width). */
export type Scores = { logprobs: number[][]; values?: number[][]; refLogprobs?: number[][] };

/** One shard's passes, each with its rows' ids and targets trimmed to the pass width. */
export type ScoreInput = {
  passes: { pass: Pass; ids: number[][]; targets: number[][] }[];
  values: boolean;
  reference: boolean;
};
export type ScoreOutput = {
  pass: Pass;
  logprobs: number[][];
  values?: number[][];
  refLogprobs?: number[][];
}[];

function scorePassesOf(models: ShardModels, input: ScoreInput): ScoreOutput {
  return input.passes.map(({ pass, ids, targets }) =>
    tf.tidy(() => {
      const idsT = tf.tensor2d(ids, undefined, "int32");
      const targetsT = tf.tensor2d(targets, undefined, "int32");
      const ev = models.policy.evaluate(idsT, targetsT, { values: input.values });
      const ref = input.reference ? models.reference : undefined;
      if (input.reference && ref === undefined)
        throw new Error("scoring asked for a reference this thread lacks");
      return {
        pass,
        logprobs: ev.logprobs.arraySync(),
        ...(ev.values ? { values: ev.values.arraySync() } : {}),
        ...(ref ? { refLogprobs: ref.logprobsOf(idsT, targetsT).arraySync() } : {}),
      };
    }),
  );
}

/** Logprobs (and values, reference logprobs) of a shard's passes under the thread's weights, no gradients. */
export const scorePasses = forwardTask<ScoreInput, ScoreOutput>(
  import.meta.url,
  "scorePasses",
  scorePassesOf,
);

/**
 * Scores `rows` of a right-padded batch (`ids`, `targets` `[R, width]`, `lengths` the real lengths) in
 * passes of at most `budget` elements, split across the pool's threads (or here alone without a
 * pool). What the RL update's scoring computes, in the same layout.
 */
export async function scoreRows(
  where: { pool: PolicyPool } | { models: ShardModels },
  batch: { ids: number[][]; targets: number[][]; lengths: readonly number[]; width: number },
  opts: { values: boolean; reference: boolean; budget: number },
): Promise<Scores> {
  const models = "pool" in where ? where.pool.models : where.models;
  const config: ModelConfig = models.policy.config;
  const threads = "pool" in where ? where.pool.size : 1;
  const rows = batch.ids.map((_, r) => r);
  const inputs: ScoreInput[] = shardPasses(batch.lengths, rows, config, opts.budget, threads).map(
    (passes) => ({
      passes: passes.map((pass) => ({
        pass,
        ids: rowsOf(batch.ids, pass),
        targets: rowsOf(batch.targets, pass),
      })),
      values: opts.values,
      reference: opts.reference,
    }),
  );
  const outputs =
    "pool" in where
      ? await where.pool.forward(scorePasses, inputs)
      : inputs.map((i) => scorePassesOf(models, i));
  const empty = () => batch.ids.map(() => new Array<number>(batch.width).fill(0));
  const out: Scores = {
    logprobs: empty(),
    ...(opts.values ? { values: empty() } : {}),
    ...(opts.reference ? { refLogprobs: empty() } : {}),
  };
  const place = (into: number[][] | undefined, pass: Pass, got: number[][] | undefined) => {
    if (into === undefined || got === undefined) return;
    pass.rows.forEach((r, i) => {
      (got[i] as number[]).forEach((x, t) => {
        (into[r] as number[])[t] = x;
      });
    });
  };
  for (const shard of outputs)
    for (const p of shard) {
      place(out.logprobs, p.pass, p.logprobs);
      place(out.values, p.pass, p.values);
      place(out.refLogprobs, p.pass, p.refLogprobs);
    }
  return out;
}
