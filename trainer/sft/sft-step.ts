import * as tf from "@tensorflow/tfjs-core";
import { clipGradNorm } from "../algos/index.js";
import { accumulate, PASS_ELEMENTS, planPasses, rowsOf } from "../model/passes.js";
import type { PolicyModel } from "../model/types.js";
import type { StepStats } from "../optim/optimizer-step.js";

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
 * `maxGradNorm` when given. The batch runs in passes of at most `passElements` ({@link planPasses}),
 * each row trimmed after its last learned target; pass p's loss is maskedNll(pass) · n_p / n, with
 * n_p its learned tokens and n the batch's, so the accumulated gradient is the one-pass gradient
 * while peak memory stays that of one pass. Variables the loss does not reach (a value head) get no
 * gradient; the optimizer is handed null for them, which it skips, instead of a null scaled by the
 * clip factor.
 */
export function sftStep(
  model: PolicyModel,
  optimizer: tf.Optimizer,
  batch: SftBatch,
  opts: { maxGradNorm?: number; passElements?: number } = {},
): StepStats & { tokens: number } {
  const learned = batch.mask.map((m) => m.reduce((a, b) => a + b, 0));
  const tokens = learned.reduce((a, b) => a + b, 0);
  if (tokens === 0) return { loss: 0, gradNorm: 0, tokens: 0 };
  const lengths = batch.mask.map((m) => m.lastIndexOf(1) + 1);
  const live = lengths.flatMap((l, r) => (l > 0 ? [r] : []));
  const acc: tf.NamedTensorMap = {};
  let loss = 0;
  for (const pass of planPasses(lengths, live, model.config, opts.passElements ?? PASS_ELEMENTS)) {
    const share = pass.rows.reduce((a, r) => a + (learned[r] as number), 0) / tokens;
    const { value, grads } = tf.tidy(() => {
      const ids = tf.tensor2d(rowsOf(batch.ids, pass), undefined, "int32");
      const targets = tf.tensor2d(rowsOf(batch.targets, pass), undefined, "int32");
      const mask = tf.tensor2d(rowsOf(batch.mask, pass), undefined, "float32");
      return tf.variableGrads(
        () => tf.mul(maskedNll(model.logprobsOf(ids, targets), mask), share),
        model.trainableVariables as tf.Variable[],
      );
    });
    loss += value.dataSync()[0] as number;
    value.dispose();
    accumulate(acc, grads);
  }
  const clipped = clipGradNorm(acc, opts.maxGradNorm ?? Number.POSITIVE_INFINITY);
  // Every variable, in order: tfjs optimizers index their slots by position in this list (and skip a
  // null gradient), so the saved optimizer state keeps one layout whichever variables got gradients.
  optimizer.applyGradients(
    model.trainableVariables.map((v) => ({ name: v.name, tensor: clipped.grads[v.name] as tf.Tensor })),
  );
  tf.dispose([...Object.values(acc), ...Object.values(clipped.grads)]);
  return { loss, gradNorm: clipped.norm, tokens };
}
