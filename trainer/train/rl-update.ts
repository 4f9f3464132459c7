import * as tf from "@tensorflow/tfjs-core";
import {
  advantageEstimators,
  clipGradNorm,
  entropyBonus,
  klLoss,
  klRewardPenalty,
  placeStepRewards,
  policyLosses,
  primeNormalise,
  valueLoss,
} from "../algos/index.js";
import type { PolicyModel } from "../policy/types.js";
import type { Trajectory } from "../rollout/types.js";
import { buildBatch, fromFlat, type TrainBatch, toFlat } from "./batch.js";
import type { TrainConfig } from "./config.js";

export type UpdateContext = {
  model: PolicyModel;
  optimizer: tf.Optimizer;
  /** Frozen initial policy, present when `klCoef` > 0. */
  reference?: PolicyModel;
  config: TrainConfig;
  pad: number;
};

/** Rows per forward pass when scoring without gradients. */
const SCORE_CHUNK = 32;

type Scored = { logprobs: number[][]; values?: number[][]; refLogprobs?: number[][] };

/** Logprobs (and values, reference logprobs) of the batch under the current weights, no gradients. */
function score(ctx: UpdateContext, batch: TrainBatch, withValues: boolean): Scored {
  const out: Scored = {
    logprobs: [],
    ...(withValues ? { values: [] } : {}),
    ...(ctx.reference ? { refLogprobs: [] } : {}),
  };
  for (let from = 0; from < batch.rows.length; from += SCORE_CHUNK) {
    tf.tidy(() => {
      const ids = tf.tensor2d(batch.ids.slice(from, from + SCORE_CHUNK), undefined, "int32");
      const targets = tf.tensor2d(batch.targets.slice(from, from + SCORE_CHUNK), undefined, "int32");
      const ev = ctx.model.evaluate(ids, targets, { values: withValues });
      out.logprobs.push(...ev.logprobs.arraySync());
      if (withValues && ev.values) out.values?.push(...ev.values.arraySync());
      if (ctx.reference) out.refLogprobs?.push(...ctx.reference.logprobsOf(ids, targets).arraySync());
    });
  }
  return out;
}

/**
 * One RL update on a set of rollouts: score them under the current (= old) policy, compute
 * advantages per episode with the configured estimator, then run `ppoEpochs` passes of minibatch
 * steps of policy loss (+ KL, entropy, value terms) with gradient-norm clipping. Returns scalar
 * metrics (`losses/*`, `grad/norm`) and the number of tokens pushed through training.
 */
export function rlUpdate(
  ctx: UpdateContext,
  trajectories: readonly Trajectory[],
): {
  metrics: Record<string, number>;
  trainTokens: number;
} {
  const cfg = ctx.config;
  const batch = buildBatch(trajectories, ctx.pad);
  if (batch.rows.length === 0) return { metrics: {}, trainTokens: 0 };
  const estimator = advantageEstimators[cfg.algorithm];
  const scored = score(ctx, batch, estimator.critic !== "none");
  const flatMask = toFlat(batch, () => 1);
  const stepEnds = batch.episodes.map((e) =>
    Array.from({ length: batch.maxSteps }, (_, k) => {
      const row = e.rowOfStep[k];
      if (row === undefined) return -1;
      return (e.offsetOfStep[k] as number) + (batch.rows[row]?.responseIds.length ?? 0) - 1;
    }),
  );

  const targets = tf.tidy(() => {
    const mask = tf.tensor2d(flatMask);
    let stepRewards = tf.tensor2d(
      batch.episodes.map((e) =>
        Array.from({ length: batch.maxSteps }, (_, k) => e.trajectory.steps[k]?.reward ?? 0),
      ),
    );
    if (cfg.processRewardNorm === "prime") {
      const stepMask = tf.tensor2d(stepEnds.map((row) => row.map((t) => (t >= 0 ? 1 : 0))));
      stepRewards = primeNormalise(stepRewards, stepMask, groupsOf(batch));
    }
    let tokenRewards = placeStepRewards(
      stepRewards,
      tf.tensor2d(stepEnds, undefined, "int32"),
      batch.flatWidth,
    );
    if (cfg.klCoef > 0 && cfg.klMode === "reward" && scored.refLogprobs) {
      const lp = tf.tensor2d(toFlat(batch, (r, _k, j) => lpAt(scored.logprobs, batch, r, j)));
      const ref = tf.tensor2d(
        toFlat(batch, (r, _k, j) => lpAt(scored.refLogprobs as number[][], batch, r, j)),
      );
      tokenRewards = klRewardPenalty(tokenRewards, lp, ref, mask, cfg.klCoef);
    }
    const values = scored.values;
    const out = estimator.run(
      {
        tokenRewards,
        mask,
        groups: groupsOf(batch),
        ...(values ? { values: tf.tensor2d(toFlat(batch, (r, _k, j) => lpAt(values, batch, r, j))) } : {}),
        ...(values
          ? {
              stepValues: tf.tensor2d(
                batch.episodes.map((e) =>
                  Array.from({ length: batch.maxSteps }, (_, k) => {
                    const row = e.rowOfStep[k];
                    return row === undefined ? 0 : (values[row]?.[batch.lastPrompt[row] as number] ?? 0);
                  }),
                ),
              ),
              tokenStep: tf.tensor2d(
                toFlat(batch, (_r, k) => k, -1),
                undefined,
                "int32",
              ),
            }
          : {}),
      },
      { gamma: cfg.gamma, lambda: cfg.lambda, eps: 1e-6, whiten: true },
    );
    return {
      advantages: fromFlat(batch, out.advantages.arraySync()),
      returns: fromFlat(batch, out.returns.arraySync()),
      stepReturns: out.stepReturns?.arraySync(),
    };
  });

  // Value targets and where they apply: every response position (GAE) or each row's last prompt token (StepPO).
  const valueTargets = batch.rows.map((_, r) => [...(targets.returns[r] as number[])]);
  const valueMask = batch.mask.map((row) => [...row]);
  if (estimator.critic === "step") {
    batch.episodes.forEach((e, ei) => {
      e.rowOfStep.forEach((row, k) => {
        const p = batch.lastPrompt[row] as number;
        (valueTargets[row] as number[]).fill(0)[p] = targets.stepReturns?.[ei]?.[k] ?? 0;
        (valueMask[row] as number[]).fill(0)[p] = 1;
      });
    });
  }
  return optimise(
    ctx,
    batch,
    scored,
    targets.advantages,
    valueTargets,
    valueMask,
    estimator.critic !== "none",
  );
}

function groupsOf(batch: TrainBatch): number[] {
  return batch.episodes.map((e) => e.trajectory.group);
}

/** The row-layout value at response id j of row r. */
function lpAt(m: number[][], batch: TrainBatch, r: number, j: number): number {
  return m[r]?.[(batch.lastPrompt[r] as number) + j] ?? 0;
}

function optimise(
  ctx: UpdateContext,
  batch: TrainBatch,
  scored: Scored,
  advantages: number[][],
  valueTargets: number[][],
  valueMask: number[][],
  critic: boolean,
): { metrics: Record<string, number>; trainTokens: number } {
  const cfg = ctx.config;
  const sums: Record<string, number> = {};
  let steps = 0;
  let trainTokens = 0;
  const rowsPer = cfg.miniBatchRows > 0 ? cfg.miniBatchRows : batch.rows.length;
  for (let epoch = 0; epoch < cfg.ppoEpochs; epoch++) {
    for (let from = 0; from < batch.rows.length; from += rowsPer) {
      const pick = <T>(m: T[]) => m.slice(from, from + rowsPer);
      const seen: Record<string, number> = {};
      const { grads, value } = tf.tidy(() => {
        const ids = tf.tensor2d(pick(batch.ids), undefined, "int32");
        const tgt = tf.tensor2d(pick(batch.targets), undefined, "int32");
        const mask = tf.tensor2d(pick(batch.mask));
        const oldLogprobs = tf.tensor2d(pick(scored.logprobs));
        const adv = tf.tensor2d(pick(advantages));
        return tf.variableGrads(() => {
          const ev = ctx.model.evaluate(ids, tgt, { entropy: cfg.entropyCoef > 0, values: critic });
          const pl = policyLosses[cfg.policyLoss](
            { logprobs: ev.logprobs, oldLogprobs, advantages: adv, mask },
            {
              clipLow: cfg.clipLow,
              clipHigh: cfg.clipHigh,
              dualClip: cfg.dualClip,
              aggregation: cfg.aggregation,
            },
          );
          seen["losses/policy"] = pl.loss.dataSync()[0] as number;
          for (const [k, v] of Object.entries(pl.metrics)) seen[k] = v.dataSync()[0] as number;
          let loss: tf.Scalar = pl.loss;
          if (cfg.klCoef > 0 && scored.refLogprobs) {
            const kl = klLoss(ev.logprobs, tf.tensor2d(pick(scored.refLogprobs)), mask, 1, cfg.aggregation);
            seen["losses/kl"] = kl.dataSync()[0] as number;
            if (cfg.klMode === "loss") loss = tf.add(loss, tf.mul(kl, cfg.klCoef));
          }
          if (ev.entropy) {
            seen["losses/entropy"] = tf
              .div(tf.sum(tf.mul(ev.entropy, mask)), tf.sum(mask))
              .dataSync()[0] as number;
            loss = tf.add(loss, entropyBonus(ev.entropy, mask, cfg.entropyCoef, cfg.aggregation));
          }
          if (critic && ev.values) {
            const oldValues = tf.tensor2d(pick(scored.values ?? []));
            const vl = valueLoss(
              ev.values,
              oldValues,
              tf.tensor2d(pick(valueTargets)),
              tf.tensor2d(pick(valueMask)),
              cfg.valueClip,
              "token-mean",
            );
            seen["losses/value"] = vl.dataSync()[0] as number;
            loss = tf.add(loss, tf.mul(vl, cfg.valueCoef));
          }
          return loss;
        }, ctx.model.trainableVariables as tf.Variable[]);
      });
      const clipped = clipGradNorm(grads, cfg.maxGradNorm);
      ctx.optimizer.applyGradients(clipped.grads);
      tf.dispose([value, ...Object.values(grads), ...Object.values(clipped.grads)]);
      seen["grad/norm"] = clipped.norm;
      for (const [k, v] of Object.entries(seen)) sums[k] = (sums[k] ?? 0) + v;
      steps++;
      trainTokens += pick(batch.rows).reduce((a, r) => a + r.promptIds.length + r.responseIds.length, 0);
    }
  }
  const metrics = Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, v / Math.max(1, steps)]));
  return { metrics, trainTokens };
}
