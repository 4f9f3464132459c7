import * as tf from "@tensorflow/tfjs-core";
import { clipGradNorm } from "../algos/index.js";
import type { StepStats } from "../policy/optimizer-step.js";
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

/**
 * One SFT step: trains on assistant tokens only, with the gradient clipped to a global norm of
 * `maxGradNorm` when given. Variables the loss does not reach (a value head) get no gradient; the
 * optimizer is handed null for them, which it skips, instead of a null scaled by the clip factor.
 */
export function sftStep(
  model: PolicyModel,
  optimizer: tf.Optimizer,
  batch: SftBatch,
  opts: { maxGradNorm?: number } = {},
): StepStats & { tokens: number } {
  const { value, grads } = tf.tidy(() => {
    const ids = tf.tensor2d(batch.ids, undefined, "int32");
    const targets = tf.tensor2d(batch.targets, undefined, "int32");
    const mask = tf.tensor2d(batch.mask, undefined, "float32");
    return tf.variableGrads(
      () => maskedNll(model.logprobsOf(ids, targets), mask),
      model.trainableVariables as tf.Variable[],
    );
  });
  const clipped = clipGradNorm(grads, opts.maxGradNorm ?? Number.POSITIVE_INFINITY);
  // Every variable, in order: tfjs optimizers index their slots by position in this list (and skip a
  // null gradient), so the saved optimizer state keeps one layout whichever variables got gradients.
  optimizer.applyGradients(
    model.trainableVariables.map((v) => ({ name: v.name, tensor: clipped.grads[v.name] as tf.Tensor })),
  );
  const loss = value.dataSync()[0] as number;
  tf.dispose([value, ...Object.values(grads), ...Object.values(clipped.grads)]);
  return { loss, gradNorm: clipped.norm, tokens: batch.mask.flat().reduce((a, b) => a + b, 0) };
}
