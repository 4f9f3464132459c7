import * as tf from "@tensorflow/tfjs-core";
import { optimizerStep, type StepStats } from "../policy/optimizer-step.js";
import type { PolicyModel } from "../policy/types.js";

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

/** One SFT step: trains on assistant tokens only. */
export function sftStep(
  model: PolicyModel,
  optimizer: tf.Optimizer,
  batch: SftBatch,
  opts: { maxGradNorm?: number } = {},
): StepStats & { tokens: number } {
  const ids = tf.tensor2d(batch.ids, undefined, "int32");
  const targets = tf.tensor2d(batch.targets, undefined, "int32");
  const mask = tf.tensor2d(batch.mask, undefined, "float32");
  try {
    const stats = optimizerStep(
      model,
      optimizer,
      () => maskedNll(model.logprobsOf(ids, targets), mask),
      opts.maxGradNorm,
    );
    return { ...stats, tokens: batch.mask.flat().reduce((a, b) => a + b, 0) };
  } finally {
    tf.dispose([ids, targets, mask]);
  }
}
