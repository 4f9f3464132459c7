import * as tf from "@tensorflow/tfjs-core";
import { aggregateLoss } from "./aggregate.js";
import type { LossAggregation } from "./names.js";
import { LOG_RATIO_BOUND } from "./policy-loss.js";

/**
 * Low-variance KL estimate of KL(π_θ ‖ π_ref) per token (Schulman's k3), on [B, T] logprobs:
 *   x = clamp(log π_ref − log π_θ, ±20),  kl = eˣ − x − 1,  clamped to [−10, 10] (verl's `low_var_kl`).
 * Always ≥ 0 and unbiased; its gradient flows through log π_θ. Clamping x before the exponent keeps
 * eˣ finite, so an extreme token gives a zero gradient from the outer clamp instead of ∞·0 = NaN.
 */
export function lowVarKl(logprobs: tf.Tensor2D, refLogprobs: tf.Tensor2D): tf.Tensor2D {
  return tf.tidy(() => {
    const x = tf.clipByValue(tf.sub(refLogprobs, logprobs), -LOG_RATIO_BOUND, LOG_RATIO_BOUND);
    return tf.clipByValue(tf.sub(tf.sub(tf.exp(x), x), 1), -10, 10) as tf.Tensor2D;
  });
}

/** KL as a loss term: β · agg(kl) over the mask; the scalar goes into `losses/kl`. */
export function klLoss(
  logprobs: tf.Tensor2D,
  refLogprobs: tf.Tensor2D,
  mask: tf.Tensor2D,
  beta: number,
  aggregation: LossAggregation,
): tf.Scalar {
  return tf.tidy(() => tf.mul(aggregateLoss(lowVarKl(logprobs, refLogprobs), mask, aggregation), beta));
}

/** KL as a reward penalty (no gradient): r'_t = r_t − β·kl_t on masked-in tokens [B, T]. */
export function klRewardPenalty(
  tokenRewards: tf.Tensor2D,
  logprobs: tf.Tensor2D,
  refLogprobs: tf.Tensor2D,
  mask: tf.Tensor2D,
  beta: number,
): tf.Tensor2D {
  return tf.tidy(() => tf.sub(tokenRewards, tf.mul(tf.mul(lowVarKl(logprobs, refLogprobs), mask), beta)));
}

/** Entropy of the next-token distribution per position from logits z [B, T, V]: H = logΣe^z − Σ softmax(z)·z. */
export function entropyFromLogits(logits: tf.Tensor3D): tf.Tensor2D {
  return tf.tidy(() => {
    const logp = tf.logSoftmax(logits);
    return tf.neg(tf.sum(tf.mul(tf.exp(logp), logp), -1)) as tf.Tensor2D;
  });
}

/** Entropy bonus as a loss term: −c·agg(H) (minimising it raises entropy). */
export function entropyBonus(
  entropy: tf.Tensor2D,
  mask: tf.Tensor2D,
  coef: number,
  aggregation: LossAggregation,
): tf.Scalar {
  return tf.tidy(() => tf.mul(aggregateLoss(entropy, mask, aggregation), -coef));
}

/**
 * Clipped value loss (PPO): with V the new values, V_old those at sampling time and R the targets,
 *   L = ½·max((V − R)², (V_old + clip(V − V_old, −ε, ε) − R)²), aggregated over the mask.
 */
export function valueLoss(
  values: tf.Tensor2D,
  oldValues: tf.Tensor2D,
  returns: tf.Tensor2D,
  mask: tf.Tensor2D,
  clip: number,
  aggregation: LossAggregation,
): tf.Scalar {
  return tf.tidy(() => {
    const clipped = tf.add(oldValues, tf.clipByValue(tf.sub(values, oldValues), -clip, clip));
    const worst = tf.maximum(tf.square(tf.sub(values, returns)), tf.square(tf.sub(clipped, returns)));
    return tf.mul(aggregateLoss(worst as tf.Tensor2D, mask, aggregation), 0.5);
  });
}

/**
 * Global-norm gradient clipping: n = sqrt(Σ_g ‖g‖²); every gradient is scaled by min(1, max/(n + 1e-6)).
 * Returns the clipped gradients and the pre-clip norm (`grad/norm`). The norm is read with await, as
 * every training read is: webgpu in Node can read a tensor only asynchronously.
 */
export async function clipGradNorm(
  grads: tf.NamedTensorMap,
  maxNorm: number,
): Promise<{ grads: tf.NamedTensorMap; norm: number }> {
  const squares = Object.values(grads);
  // Added one at a time, in the order tf.addN adds them (the same float32 sums), since one addN of
  // every gradient binds more buffers than a GPU shader stage may hold.
  const total =
    squares.length === 0
      ? undefined
      : tf.tidy(() => squares.map((g) => tf.sum(tf.square(g))).reduce((sum, x) => tf.add(sum, x)));
  const norm = total === undefined ? 0 : Math.sqrt((await total.data())[0] as number);
  total?.dispose();
  const scale = Math.min(1, maxNorm / (norm + 1e-6));
  const clipped: tf.NamedTensorMap = {};
  for (const [name, g] of Object.entries(grads)) clipped[name] = tf.mul(g, scale);
  return { grads: clipped, norm };
}
