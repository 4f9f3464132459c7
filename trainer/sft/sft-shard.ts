import * as tf from "@tensorflow/tfjs-core";
import { clipGradNorm } from "../algos/index.js";
import { PASS_ELEMENTS, rowsOf } from "../model/passes.js";
import type { StepStats } from "../optim/optimizer-step.js";
import type { PolicyPool } from "../parallel/policy-pool.js";
import { lossTask } from "../parallel/shard-task.js";
import { shardPasses } from "../parallel/shards.js";
import { maskedNll, type SftBatch } from "./sft-step.js";

/** One SFT pass: its rows, and its learned tokens over the step's (its share of the token mean). */
export type SftPassInput = { ids: number[][]; targets: number[][]; mask: number[][]; share: number };

/** maskedNll(pass) · share: `sftStep`'s pass loss, which summed over passes is the step's loss. */
export const sftPassLoss = lossTask<SftPassInput>(
  import.meta.url,
  "sftPassLoss",
  ({ policy }, input, note) => {
    const ids = tf.tensor2d(input.ids, undefined, "int32");
    const targets = tf.tensor2d(input.targets, undefined, "int32");
    const mask = tf.tensor2d(input.mask, undefined, "float32");
    const loss = tf.mul(maskedNll(policy.logprobsOf(ids, targets), mask), input.share) as tf.Scalar;
    note("loss", loss, 1);
    return loss;
  },
);

/**
 * `batch` as `sftStep` splits it, in `k` shards: each row trimmed after its last learned target,
 * shards of about equal cost, passes within each. Empty when nothing is learned.
 */
export function sftShards(
  pool: Pick<PolicyPool, "models" | "size">,
  batch: SftBatch,
  passElements = PASS_ELEMENTS,
): SftPassInput[][] {
  const learned = batch.mask.map((m) => m.reduce((a, b) => a + b, 0));
  const tokens = learned.reduce((a, b) => a + b, 0);
  if (tokens === 0) return [];
  const lengths = batch.mask.map((m) => m.lastIndexOf(1) + 1);
  const live = lengths.flatMap((l, r) => (l > 0 ? [r] : []));
  const config = pool.models.policy.config;
  return shardPasses(lengths, live, config, passElements, pool.size).map((passes) =>
    passes.map((pass) => ({
      ids: rowsOf(batch.ids, pass),
      targets: rowsOf(batch.targets, pass),
      mask: rowsOf(batch.mask, pass),
      share: pass.rows.reduce((a, r) => a + (learned[r] as number), 0) / tokens,
    })),
  );
}

/**
 * `sftStep` with the gradient computed across the pool's threads: the same loss, clip and optimizer
 * step, and the same result up to the order of float additions.
 */
export async function sftStepParallel(
  pool: PolicyPool,
  optimizer: tf.Optimizer,
  batch: SftBatch,
  opts: { maxGradNorm?: number; passElements?: number } = {},
): Promise<StepStats & { tokens: number }> {
  const tokens = batch.mask.reduce((a, m) => a + m.reduce((x, y) => x + y, 0), 0);
  const shards = sftShards(pool, batch, opts.passElements);
  if (shards.length === 0) return { loss: 0, gradNorm: 0, tokens: 0 };
  const { grads, notes } = await pool.gradients(sftPassLoss, shards);
  const clipped = clipGradNorm(grads, opts.maxGradNorm ?? Number.POSITIVE_INFINITY);
  // Every variable in order, null where no gradient, as sftStep hands them (the slot layout).
  optimizer.applyGradients(
    pool.models.policy.trainableVariables.map((v) => ({
      name: v.name,
      tensor: clipped.grads[v.name] as tf.Tensor,
    })),
  );
  tf.dispose([...Object.values(grads), ...Object.values(clipped.grads)]);
  return { loss: notes.loss ?? 0, gradNorm: clipped.norm, tokens };
}
