import * as tf from "@tensorflow/tfjs-core";
import { type Pass, rowsOf } from "../model/passes.js";
import type { PolicyPool } from "../parallel/policy-pool.js";
import { forwardTask, type ShardModels } from "../parallel/shard-task.js";
import { shardPasses } from "../parallel/shards.js";
import type { TrainBatch } from "./batch.js";

/**
 * What the policy before the update says about a batch, in its row layout `[R, T]` (0 past each
 * row's pass width): the old log-probabilities every ratio is taken against, the value head's
 * values when the method has a critic, and the frozen reference's log-probabilities for the KL.
 */
export type Scores = { logprobs: number[][]; values?: number[][]; refLogprobs?: number[][] };

/** One shard's passes, each with its rows' ids and targets trimmed to the pass width. */
export type ScoreInput = {
  passes: { pass: Pass; ids: number[][]; targets: number[][] }[];
  values: boolean;
  reference: boolean;
};
export type ScoreOutput = ({ pass: Pass } & Scores)[];

/** Logprobs (and values, reference logprobs) of a shard's passes under the thread's weights, no gradients. */
export const scorePasses = forwardTask<ScoreInput, ScoreOutput>(
  import.meta.url,
  "scorePasses",
  async (models: ShardModels, input) => {
    const out: ScoreOutput = [];
    // One pass at a time, as before: its tensors are read (with await, as webgpu needs) and freed
    // before the next pass runs.
    for (const { pass, ids, targets } of input.passes) {
      const ref = input.reference ? models.reference : undefined;
      if (input.reference && ref === undefined)
        throw new Error("scoring asked for a reference this thread lacks");
      const { logprobs, values, refLogprobs } = tf.tidy(() => {
        const idsT = tf.tensor2d(ids, undefined, "int32");
        const targetsT = tf.tensor2d(targets, undefined, "int32");
        const ev = models.policy.evaluate(idsT, targetsT, { values: input.values });
        return { logprobs: ev.logprobs, values: ev.values, refLogprobs: ref?.logprobsOf(idsT, targetsT) };
      });
      out.push({
        pass,
        logprobs: (await logprobs.array()) as number[][],
        ...(values ? { values: (await values.array()) as number[][] } : {}),
        ...(refLogprobs ? { refLogprobs: (await refLogprobs.array()) as number[][] } : {}),
      });
      tf.dispose([logprobs, ...(values ? [values] : []), ...(refLogprobs ? [refLogprobs] : [])]);
    }
    return out;
  },
);

/**
 * Scores every row of `batch` (right-padded `ids`, `targets` `[R, width]`, `lengths` the real
 * lengths) under the pool's current weights, without gradients, in passes of at most `budget`
 * float32 elements split across the pool's threads; with the reference's logprobs when asked (the
 * pool then holds one).
 */
export async function scoreRows(
  pool: PolicyPool,
  batch: Pick<TrainBatch, "ids" | "targets" | "lengths" | "width">,
  opts: { values: boolean; reference: boolean; budget: number },
): Promise<Scores> {
  const rows = batch.ids.map((_, r) => r);
  const shards = shardPasses(batch.lengths, rows, pool.models.policy.config, opts.budget, pool.size);
  const inputs: ScoreInput[] = shards.map((passes) => ({
    passes: passes.map((pass) => ({
      pass,
      ids: rowsOf(batch.ids, pass),
      targets: rowsOf(batch.targets, pass),
    })),
    values: opts.values,
    reference: opts.reference,
  }));
  const outputs = await pool.forward(scorePasses, inputs);
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
