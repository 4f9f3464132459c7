import * as tf from "@tensorflow/tfjs-core";
import { aggregateLoss, maskedMean } from "./aggregate.js";
import type { LossAggregation, PolicyLossName } from "./names.js";
import { stopGradient } from "./stop-gradient.js";

export type PolicyLossInput = {
  /** log π_θ(a_t | s_t) of the sampled tokens under the current policy [B, T] (carries the gradient). */
  logprobs: tf.Tensor2D;
  /** log π_old(a_t | s_t) recorded at sampling time [B, T]. */
  oldLogprobs: tf.Tensor2D;
  /** A [B, T]. */
  advantages: tf.Tensor2D;
  /** m [B, T]: 1 on response tokens trained on, 0 on prompt, observation and padding tokens. */
  mask: tf.Tensor2D;
};

export type PolicyLossOptions = {
  /** ε_low: the ratio is clipped below at 1 − ε_low. */
  clipLow: number;
  /** ε_high: the ratio is clipped above at 1 + ε_high (DAPO's clip-higher when > ε_low). */
  clipHigh: number;
  /** Dual-clip c > 1: for A < 0 the loss is capped at −A·c. */
  dualClip: number;
  aggregation: LossAggregation;
};

/**
 * Bound on a log-ratio before it is exponentiated, as verl clamps `log π_θ − log π_old` (±20): e^20 is
 * finite in float32, so one runaway token gives a large but finite loss and gradient instead of a NaN
 * that would poison the whole step.
 */
export const LOG_RATIO_BOUND = 20;

/** Scalar metrics of one loss evaluation, as tensors so that callers read them after the step. */
export type LossMetrics = Record<string, tf.Scalar>;
export type LossOutput = { loss: tf.Scalar; metrics: LossMetrics };

/**
 * The clipped surrogate shared by PPO and GSPO, on a given ratio ρ [B, T]:
 *   L1 = −A·ρ, L2 = −A·clip(ρ, 1 − ε_low, 1 + ε_high), L = max(L1, L2);
 *   dual clip (PPO only): where A < 0, L = min(L, −A·c).
 * Metrics: `losses/clipfrac` = mean(L2 > L1), `losses/dual_clipfrac` = mean(A < 0 ∧ L > −A·c).
 */
function clippedSurrogate(
  ratio: tf.Tensor2D,
  input: PolicyLossInput,
  opts: PolicyLossOptions,
  dualClip: boolean,
): LossOutput {
  const { advantages: a, mask } = input;
  const l1 = tf.mul(tf.neg(a), ratio);
  const l2 = tf.mul(tf.neg(a), tf.clipByValue(ratio, 1 - opts.clipLow, 1 + opts.clipHigh));
  const clipped = tf.maximum(l1, l2);
  const cap = tf.mul(tf.neg(a), opts.dualClip);
  const negative = dualClip ? tf.less(a, 0) : tf.zerosLike(a).cast("bool");
  const perToken = tf.where(negative, tf.minimum(clipped, cap), clipped) as tf.Tensor2D;
  const loss = aggregateLoss(perToken, mask, opts.aggregation);
  const metrics: LossMetrics = {
    "losses/clipfrac": maskedMean(tf.cast(tf.greater(l2, l1), "float32"), mask),
    "losses/dual_clipfrac": maskedMean(
      tf.cast(tf.logicalAnd(negative, tf.greater(clipped, cap)), "float32"),
      mask,
    ),
    "losses/approx_kl": maskedMean(tf.sub(input.oldLogprobs, input.logprobs), mask),
  };
  return { loss, metrics };
}

/**
 * PPO with dual clip on the token ratio ρ_t = exp(clamp(log π_θ − log π_old, ±20)) (verl's
 * `compute_policy_loss`).
 */
export function ppoLoss(input: PolicyLossInput, opts: PolicyLossOptions): LossOutput {
  const logRatio = tf.clipByValue(
    tf.sub(input.logprobs, input.oldLogprobs),
    -LOG_RATIO_BOUND,
    LOG_RATIO_BOUND,
  );
  return clippedSurrogate(tf.exp(logRatio) as tf.Tensor2D, input, opts, true);
}

/**
 * GSPO (StepPO's policy loss): the sequence-level geometric-mean ratio
 *   s_b = exp( (1/|y_b|) Σ_t m_{b,t}·(log π_θ − log π_old) ),
 * applied per token as ρ_{b,t} = sg(s_b)·π_θ(y_t)/sg(π_θ(y_t)), so its value is s_b for every token
 * and its gradient is s_b·∇log π_θ(y_t). The clipped surrogate then runs on ρ (ε values are ~1e-3)
 * without the dual clip, and the log-ratio is capped at 10, as in the GSPO reference (verl's
 * `compute_policy_loss_gspo`). The reference aggregates with `seq-mean-token-mean`; here the run's
 * `aggregation` applies, so a recipe that wants the reference sets it.
 */
export function gspoLoss(input: PolicyLossInput, opts: PolicyLossOptions): LossOutput {
  const { logprobs, oldLogprobs, mask } = input;
  const diff = tf.mul(tf.sub(logprobs, oldLogprobs), mask);
  const seqLogRatio = tf.div(tf.sum(diff, 1, true), tf.maximum(tf.sum(mask, 1, true), 1));
  const tokenLogRatio = tf.add(stopGradient(seqLogRatio), tf.sub(logprobs, stopGradient(logprobs)));
  const ratio = tf.exp(tf.minimum(tokenLogRatio, 10)) as tf.Tensor2D;
  return clippedSurrogate(ratio, input, opts, false);
}

/** Every policy loss by the name the config uses (names.ts lists them). */
export const policyLosses = { ppo: ppoLoss, gspo: gspoLoss } as const satisfies Record<
  PolicyLossName,
  (input: PolicyLossInput, opts: PolicyLossOptions) => LossOutput
>;
