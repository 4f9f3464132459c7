import * as tf from "@tensorflow/tfjs-core";
import { clipGradNorm } from "../algos/index.js";
import { PASS_ELEMENTS, rowsOf } from "../model/passes.js";
import type { StepStats } from "../optim/optimizer-step.js";
import type { PolicyPool } from "../parallel/policy-pool.js";
import { lossTask } from "../parallel/shard-task.js";
import { shardPasses } from "../parallel/shards.js";

/** Right-padded `[B, T]` rows: inputs, next-token targets, and 1 where the target is an assistant token. */
export interface SftBatch {
  ids: number[][];
  targets: number[][];
  mask: number[][];
}

/**
 * Masked next-token loss: L = −Σ_{b,t} m[b,t] · logp[b,t] / max(1, Σ m). Positions with m = 0
 * (prompt, observations, padding) get exactly zero gradient. `[B, T]` → scalar.
 */
export function maskedNll(logprobs: tf.Tensor2D, mask: tf.Tensor2D): tf.Scalar {
  return tf.tidy(() => tf.div(tf.neg(tf.sum(tf.mul(logprobs, mask))), tf.maximum(tf.sum(mask), 1)));
}

/** One SFT pass: its rows, and its learned tokens over the step's (its share of the token mean). */
export type SftPassInput = { ids: number[][]; targets: number[][]; mask: number[][]; share: number };

/** maskedNll(pass) · share: the pass loss, which summed over the step's passes is the step's loss. */
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
 * `batch` as the step splits it over the pool's threads: each row trimmed after its last learned
 * target, shards of about equal cost, passes of at most `passElements` within each. Empty when
 * nothing is learned.
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
 * One SFT step of the pool's policy: trains on assistant tokens only, with the gradient clipped to a
 * global norm of `maxGradNorm` when given. The batch runs in passes ({@link sftShards}); pass p's loss
 * is maskedNll(pass) · n_p / n, with n_p its learned tokens and n the batch's, so the summed gradient
 * is the one-pass gradient while peak memory stays that of one pass, and the result is the same on
 * any number of threads up to the order of float additions. Variables the loss does not reach (a
 * value head) get no gradient; the optimizer is handed null for them, which it skips, instead of a
 * null scaled by the clip factor.
 */
export async function sftStep(
  pool: PolicyPool,
  optimizer: tf.Optimizer,
  batch: SftBatch,
  opts: { maxGradNorm?: number; passElements?: number } = {},
): Promise<StepStats & { tokens: number }> {
  const tokens = batch.mask.reduce((a, m) => a + m.reduce((x, y) => x + y, 0), 0);
  const shards = sftShards(pool, batch, opts.passElements);
  if (shards.length === 0) return { loss: 0, gradNorm: 0, tokens: 0 };
  const { grads, notes } = await pool.gradients(sftPassLoss, shards);
  const clipped = await clipGradNorm(grads, opts.maxGradNorm ?? Number.POSITIVE_INFINITY);
  // Every variable, in order: tfjs optimizers index their slots by position in this list (and skip a
  // null gradient), so the saved optimizer state keeps one layout whichever variables got gradients.
  optimizer.applyGradients(
    pool.models.policy.trainableVariables.map((v) => ({
      name: v.name,
      tensor: clipped.grads[v.name] as tf.Tensor,
    })),
  );
  tf.dispose([...Object.values(grads), ...Object.values(clipped.grads)]);
  return { loss: notes.loss ?? 0, gradNorm: clipped.norm, tokens };
}
