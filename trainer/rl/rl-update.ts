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
  weighNegativeAdvantages,
} from "../algos/index.js";
import { METHODS } from "../algos/registry.js";
import { accumulate, PASS_ELEMENTS, type Pass, planPasses, rowsOf } from "../model/passes.js";
import type { PolicyModel } from "../model/types.js";
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
  /** Budget of one forward(/backward) pass in float32 elements (see {@link passCost}); default {@link PASS_ELEMENTS}. */
  passElements?: number;
};

type Scored = { logprobs: number[][]; values?: number[][]; refLogprobs?: number[][] };

/** Logprobs (and values, reference logprobs) of the batch under the current weights, no gradients. */
function score(ctx: UpdateContext, batch: TrainBatch, withValues: boolean): Scored {
  const empty = () => batch.sequences.map(() => new Array<number>(batch.width).fill(0));
  const out: Scored = {
    logprobs: empty(),
    ...(withValues ? { values: empty() } : {}),
    ...(ctx.reference ? { refLogprobs: empty() } : {}),
  };
  const place = (into: number[][], pass: Pass, rows: number[][]) => {
    pass.rows.forEach((r, i) => {
      into[r] = [...(rows[i] as number[]), ...(into[r] as number[]).slice(pass.width)];
    });
  };
  const all = batch.sequences.map((_, r) => r);
  for (const pass of planPasses(batch.lengths, all, ctx.model.config, ctx.passElements ?? PASS_ELEMENTS)) {
    tf.tidy(() => {
      const ids = tf.tensor2d(rowsOf(batch.ids, pass), undefined, "int32");
      const targets = tf.tensor2d(rowsOf(batch.targets, pass), undefined, "int32");
      const ev = ctx.model.evaluate(ids, targets, { values: withValues });
      place(out.logprobs, pass, ev.logprobs.arraySync());
      if (out.values && ev.values) place(out.values, pass, ev.values.arraySync());
      if (ctx.reference && out.refLogprobs)
        place(out.refLogprobs, pass, ctx.reference.logprobsOf(ids, targets).arraySync());
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
  // Merged rows score the same tokens with the same prefixes, so only a loss that treats each step as
  // its own sequence (GSPO's ratio, the seq-mean aggregations) needs one row per step.
  const merge = cfg.policyLoss === "ppo" && cfg.aggregation === "token-mean";
  const batch = buildBatch(trajectories, ctx.pad, merge);
  if (batch.sequences.length === 0) return { metrics: {}, trainTokens: 0 };
  const estimator = advantageEstimators[METHODS[cfg.algorithm].estimator];
  const scored = score(ctx, batch, estimator.critic !== "none");
  const flatMask = toFlat(batch, () => 1);
  const stepEnds = batch.episodes.map((e) =>
    Array.from({ length: batch.maxSteps }, (_, k) => {
      const span = e.spans[k];
      if (span === undefined) return -1;
      return (e.offsetOfStep[k] as number) + span.length - 1;
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
      const lp = tf.tensor2d(toFlat(batch, (r, t) => at(scored.logprobs, r, t)));
      const ref = tf.tensor2d(toFlat(batch, (r, t) => at(scored.refLogprobs as number[][], r, t)));
      tokenRewards = klRewardPenalty(tokenRewards, lp, ref, mask, cfg.klCoef);
    }
    const values = scored.values;
    const out = estimator.run(
      {
        tokenRewards,
        mask,
        groups: groupsOf(batch),
        ...(values ? { values: tf.tensor2d(toFlat(batch, (r, t) => at(values, r, t))) } : {}),
        ...(values
          ? {
              stepValues: tf.tensor2d(
                batch.episodes.map((e) =>
                  Array.from({ length: batch.maxSteps }, (_, k) => {
                    const span = e.spans[k];
                    return span === undefined ? 0 : at(values, span.row, span.start);
                  }),
                ),
              ),
              tokenStep: tf.tensor2d(
                toFlat(batch, (_r, _t, k) => k, -1),
                undefined,
                "int32",
              ),
            }
          : {}),
      },
      { gamma: cfg.gamma, lambda: cfg.lambda, eps: 1e-6, whiten: true },
    );
    return {
      advantages: fromFlat(
        batch,
        cfg.negativeAdvantageWeight === 1
          ? out.advantages.arraySync()
          : weighNegativeAdvantages(out.advantages, cfg.negativeAdvantageWeight).arraySync(),
      ),
      returns: fromFlat(batch, out.returns.arraySync()),
      stepReturns: out.stepReturns?.arraySync(),
    };
  });

  // Value targets and where they apply: every response position (GAE) or each step's last prompt token (StepPO).
  let valueTargets = targets.returns;
  let valueMask = batch.mask;
  if (estimator.critic === "step") {
    valueTargets = batch.sequences.map(() => new Array<number>(batch.width).fill(0));
    valueMask = batch.sequences.map(() => new Array<number>(batch.width).fill(0));
    batch.episodes.forEach((e, ei) => {
      e.spans.forEach((s, k) => {
        (valueTargets[s.row] as number[])[s.start] = targets.stepReturns?.[ei]?.[k] ?? 0;
        (valueMask[s.row] as number[])[s.start] = 1;
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

/** The row-layout value at position t of row r. */
function at(m: number[][], r: number, t: number): number {
  return m[r]?.[t] ?? 0;
}

/** Counts that the loss terms of a set of rows are averaged over. */
type Counts = { tokens: number; liveRows: number; valueTokens: number };

function countsOf(rows: readonly number[], mask: number[][], valueMask: number[][]): Counts {
  const sum = (row: number[] | undefined) => (row ?? []).reduce((a, b) => a + b, 0);
  const out: Counts = { tokens: 0, liveRows: 0, valueTokens: 0 };
  for (const r of rows) {
    const n = sum(mask[r]);
    out.tokens += n;
    out.liveRows += n > 0 ? 1 : 0;
    out.valueTokens += sum(valueMask[r]);
  }
  return out;
}

/**
 * `ppoEpochs` passes of mini-batch steps. Each mini-batch's gradient is accumulated over passes of
 * bounded size ({@link planPasses}); each pass's loss terms are weighted by its share of what the
 * mini-batch averages over (tokens for token-mean, non-empty rows for the seq-mean modes, value
 * tokens for the value loss), so the sum equals the one-pass loss. Mini-batches with no trained
 * token take no optimizer step.
 */
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
  const rowsPer = cfg.miniBatchRows > 0 ? cfg.miniBatchRows : batch.sequences.length;
  const trains = (n: Counts) => n.tokens > 0 || (critic && n.valueTokens > 0);
  for (let epoch = 0; epoch < cfg.ppoEpochs; epoch++) {
    for (let from = 0; from < batch.sequences.length; from += rowsPer) {
      const rows = batch.sequences.slice(from, from + rowsPer).map((_, i) => from + i);
      const total = countsOf(rows, batch.mask, valueMask);
      if (!trains(total)) continue;
      const seen: Record<string, number> = {};
      const acc: tf.NamedTensorMap = {};
      for (const pass of planPasses(
        batch.lengths,
        rows,
        ctx.model.config,
        ctx.passElements ?? PASS_ELEMENTS,
      )) {
        const n = countsOf(pass.rows, batch.mask, valueMask);
        if (!trains(n)) continue;
        const share = {
          tokens: n.tokens / Math.max(1, total.tokens),
          agg:
            cfg.aggregation === "token-mean"
              ? n.tokens / Math.max(1, total.tokens)
              : n.liveRows / Math.max(1, total.liveRows),
          value: n.valueTokens / Math.max(1, total.valueTokens),
        };
        const note = (name: string, v: tf.Tensor, weight: number) => {
          seen[name] = (seen[name] ?? 0) + weight * (v.dataSync()[0] as number);
        };
        const { grads, value } = tf.tidy(() => {
          const ids = tf.tensor2d(rowsOf(batch.ids, pass), undefined, "int32");
          const tgt = tf.tensor2d(rowsOf(batch.targets, pass), undefined, "int32");
          const mask = tf.tensor2d(rowsOf(batch.mask, pass));
          const oldLogprobs = tf.tensor2d(rowsOf(scored.logprobs, pass));
          const adv = tf.tensor2d(rowsOf(advantages, pass));
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
            note("losses/policy", pl.loss, share.agg);
            for (const [k, v] of Object.entries(pl.metrics)) note(k, v, share.tokens);
            let loss: tf.Scalar = pl.loss;
            if (cfg.klCoef > 0 && scored.refLogprobs) {
              const ref = tf.tensor2d(rowsOf(scored.refLogprobs, pass));
              const kl = klLoss(ev.logprobs, ref, mask, 1, cfg.aggregation);
              note("losses/kl", kl, share.agg);
              if (cfg.klMode === "loss") loss = tf.add(loss, tf.mul(kl, cfg.klCoef));
            }
            if (ev.entropy) {
              note(
                "losses/entropy",
                tf.div(tf.sum(tf.mul(ev.entropy, mask)), tf.maximum(tf.sum(mask), 1)),
                share.tokens,
              );
              loss = tf.add(loss, entropyBonus(ev.entropy, mask, cfg.entropyCoef, cfg.aggregation));
            }
            loss = tf.mul(loss, share.agg);
            if (critic && ev.values) {
              const vl = valueLoss(
                ev.values,
                tf.tensor2d(rowsOf(scored.values ?? [], pass)),
                tf.tensor2d(rowsOf(valueTargets, pass)),
                tf.tensor2d(rowsOf(valueMask, pass)),
                cfg.valueClip,
                "token-mean",
              );
              note("losses/value", vl, share.value);
              loss = tf.add(loss, tf.mul(vl, cfg.valueCoef * share.value));
            }
            return loss as tf.Scalar;
          }, ctx.model.trainableVariables as tf.Variable[]);
        });
        value.dispose();
        accumulate(acc, grads);
      }
      const clipped = clipGradNorm(acc, cfg.maxGradNorm);
      ctx.optimizer.applyGradients(clipped.grads);
      tf.dispose([...Object.values(acc), ...Object.values(clipped.grads)]);
      seen["grad/norm"] = clipped.norm;
      for (const [k, v] of Object.entries(seen)) sums[k] = (sums[k] ?? 0) + v;
      steps++;
      trainTokens += rows.reduce((a, r) => a + (batch.sequences[r]?.length ?? 0), 0);
    }
  }
  const metrics = Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, v / Math.max(1, steps)]));
  return { metrics, trainTokens };
}
