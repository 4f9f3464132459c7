import * as tf from "@tensorflow/tfjs-core";
import type { LossAggregation } from "./names.js";

/**
 * Reduces a per-token loss `L` [B, T] under the mask `m` [B, T] (1 = trained token) to a scalar.
 *
 * - `token-mean`:          Σ_{b,t} L·m / Σ_{b,t} m — every token weighs the same (DAPO, Dr.GRPO).
 * - `seq-mean-token-mean`: (1/B') Σ_b (Σ_t L·m / Σ_t m) — every sequence weighs the same (GRPO, GSPO).
 * - `seq-mean-token-sum`:  (1/B') Σ_b Σ_t L·m — long sequences weigh more (Dr.GRPO's unbiased form).
 *
 * B' counts only rows with at least one masked-in token, so padding rows do not dilute the mean.
 */
export function aggregateLoss(loss: tf.Tensor2D, mask: tf.Tensor2D, mode: LossAggregation): tf.Scalar {
  return tf.tidy(() => {
    const masked = tf.mul(loss, mask);
    if (mode === "token-mean") return tf.div(tf.sum(masked), tf.maximum(tf.sum(mask), 1));
    const tokens = tf.sum(mask, 1);
    const live = tf.cast(tf.greater(tokens, 0), "float32");
    const rows = tf.maximum(tf.sum(live), 1);
    const perSeq =
      mode === "seq-mean-token-mean" ? tf.div(tf.sum(masked, 1), tf.maximum(tokens, 1)) : tf.sum(masked, 1);
    return tf.div(tf.sum(tf.mul(perSeq, live)), rows);
  });
}

/** Mean of `x` [B, T] over masked-in positions: Σ x·m / Σ m (0 when the mask is empty). */
export function maskedMean(x: tf.Tensor, mask: tf.Tensor): tf.Scalar {
  return tf.tidy(() => tf.div(tf.sum(tf.mul(x, mask)), tf.maximum(tf.sum(mask), 1)));
}

/**
 * Whitens `x` [B, T] over masked-in positions: (x − μ) / sqrt(σ² + 1e-8), with μ and the unbiased σ²
 * taken over masked-in entries only; masked-out entries come back as 0.
 */
export function maskedWhiten(x: tf.Tensor2D, mask: tf.Tensor2D): tf.Tensor2D {
  return tf.tidy(() => {
    const n = tf.sum(mask);
    const mean = tf.div(tf.sum(tf.mul(x, mask)), tf.maximum(n, 1));
    const centred = tf.mul(tf.sub(x, mean), mask);
    const variance = tf.div(tf.sum(tf.square(centred)), tf.maximum(tf.sub(n, 1), 1));
    return tf.mul(tf.div(centred, tf.sqrt(tf.add(variance, 1e-8))), mask) as tf.Tensor2D;
  });
}
