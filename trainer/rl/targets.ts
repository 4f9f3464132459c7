import * as tf from "@tensorflow/tfjs-core";
import {
  type AdvantageEstimatorName,
  type AdvantageInput,
  advantageEstimators,
  ESTIMATOR_CRITICS,
  klRewardPenalty,
  placeStepRewards,
  primeNormalise,
  weighNegativeAdvantages,
} from "../algos/index.js";
import type { Trajectory } from "../rollout/types.js";
import { fromFlat, type TrainBatch, toFlat } from "./batch.js";
import type { TrainConfig } from "./config.js";
import type { Scores } from "./score.js";

/**
 * What the update trains towards, in the batch's row layout `[R, T]`: the advantage of every trained
 * token, and the value head's targets with the positions they apply at (every response token for
 * GAE; each step's last prompt token for StepPO; unused without a critic).
 */
export type Targets = { advantages: number[][]; valueTargets: number[][]; valueMask: number[][] };

export type TargetSettings = Pick<
  TrainConfig,
  "processRewardNorm" | "rewardFrom" | "klCoef" | "klMode" | "gamma" | "lambda" | "negativeAdvantageWeight"
>;

/**
 * Advantages and value targets of a scored batch. Estimators work per episode, on the "flat" layout
 * (an episode's response tokens of all its steps back to back, batch.ts): rewards go there, the
 * estimator runs there, and its outputs come back onto the rows.
 */
export async function computeTargets(
  batch: TrainBatch,
  scores: Scores,
  cfg: TargetSettings,
  estimator: AdvantageEstimatorName,
): Promise<Targets> {
  // The estimators read their tensors with await, so no tf.tidy can hold them: every tensor made
  // here is listed and freed at the end.
  const made: tf.Tensor[] = [];
  const own: Own = (t) => {
    made.push(t);
    return t;
  };
  try {
    const mask = own(tf.tensor2d(toFlat(batch, () => 1)));
    const tokenRewards = await rewardsPerToken(batch, scores, cfg, mask, own);
    const out = await advantageEstimators[estimator](estimatorInput(batch, scores, tokenRewards, mask, own), {
      gamma: cfg.gamma,
      lambda: cfg.lambda,
      eps: 1e-6,
      whiten: true,
    });
    for (const t of [out.advantages, out.returns, out.stepReturns]) if (t) own(t);
    const advantages =
      cfg.negativeAdvantageWeight === 1
        ? out.advantages
        : own(weighNegativeAdvantages(out.advantages, cfg.negativeAdvantageWeight));
    const returns = fromFlat(batch, await out.returns.array());
    return {
      advantages: fromFlat(batch, await advantages.array()),
      ...valueTargetsOf(batch, ESTIMATOR_CRITICS[estimator], returns, await out.stepReturns?.array()),
    };
  } finally {
    tf.dispose(made);
  }
}

/** Lists a tensor for {@link computeTargets} to free, and hands it back. */
type Own = <T extends tf.Tensor>(t: T) => T;

/** The reward step k of an episode trains with: the env's, or under `rewardFrom: success` 1 on a successful episode's last step. */
export function stepReward(t: Trajectory, k: number, rewardFrom: TrainConfig["rewardFrom"]): number {
  return rewardFrom === "success" ? Number(t.success && k === t.steps.length - 1) : (t.steps[k]?.reward ?? 0);
}

/** An episode's outcome score s_b as the group baselines see it: Σ_k of its {@link stepReward}. */
export function episodeScore(t: Trajectory, rewardFrom: TrainConfig["rewardFrom"]): number {
  return t.steps.reduce((sum, _, k) => sum + stepReward(t, k, rewardFrom), 0);
}

/**
 * Per-token rewards [E, flatWidth]: each step's env reward (or with `rewardFrom: success`, 1 on the last
 * step of a successful episode and 0 elsewhere) at its last response token (PRIME-normalised within the
 * group first, with `processRewardNorm: prime`), minus β·KL to the reference per token when the KL is a
 * reward penalty.
 */
async function rewardsPerToken(
  batch: TrainBatch,
  scores: Scores,
  cfg: TargetSettings,
  mask: tf.Tensor2D,
  own: Own,
): Promise<tf.Tensor2D> {
  const stepEnds = batch.episodes.map((e) =>
    Array.from({ length: batch.maxSteps }, (_, k) => {
      const span = e.spans[k];
      if (span === undefined) return -1;
      return (e.offsetOfStep[k] as number) + span.length - 1;
    }),
  );
  let stepRewards = own(
    tf.tensor2d(
      batch.episodes.map((e) =>
        Array.from({ length: batch.maxSteps }, (_, k) => stepReward(e.trajectory, k, cfg.rewardFrom)),
      ),
    ),
  );
  if (cfg.processRewardNorm === "prime") {
    const stepMask = own(tf.tensor2d(stepEnds.map((row) => row.map((t) => (t >= 0 ? 1 : 0)))));
    stepRewards = own(await primeNormalise(stepRewards, stepMask, groupsOf(batch)));
  }
  const tokenRewards = own(
    await placeStepRewards(stepRewards, own(tf.tensor2d(stepEnds, undefined, "int32")), batch.flatWidth),
  );
  if (!(cfg.klCoef > 0 && cfg.klMode === "reward" && scores.refLogprobs)) return tokenRewards;
  const ref = scores.refLogprobs;
  const lp = own(tf.tensor2d(toFlat(batch, (r, t) => at(scores.logprobs, r, t))));
  const refLp = own(tf.tensor2d(toFlat(batch, (r, t) => at(ref, r, t))));
  return own(klRewardPenalty(tokenRewards, lp, refLp, mask, cfg.klCoef));
}

/**
 * The estimator's input; with the value head's values, also V at every response token (GAE), V at
 * each step's last prompt token and each token's step index (StepPO).
 */
function estimatorInput(
  batch: TrainBatch,
  scores: Scores,
  tokenRewards: tf.Tensor2D,
  mask: tf.Tensor2D,
  own: Own,
): AdvantageInput {
  const input: AdvantageInput = { tokenRewards, mask, groups: groupsOf(batch) };
  const values = scores.values;
  if (!values) return input;
  return {
    ...input,
    values: own(tf.tensor2d(toFlat(batch, (r, t) => at(values, r, t)))),
    stepValues: own(
      tf.tensor2d(
        batch.episodes.map((e) =>
          Array.from({ length: batch.maxSteps }, (_, k) => {
            const span = e.spans[k];
            return span === undefined ? 0 : at(values, span.row, span.start);
          }),
        ),
      ),
    ),
    tokenStep: own(
      tf.tensor2d(
        toFlat(batch, (_r, _t, k) => k, -1),
        undefined,
        "int32",
      ),
    ),
  };
}

/**
 * The value head's targets: the returns at every response token, or for a step-level critic each
 * step's return at the step's last prompt token (where StepPO reads its value).
 */
function valueTargetsOf(
  batch: TrainBatch,
  critic: "none" | "token" | "step",
  returns: number[][],
  stepReturns: number[][] | undefined,
): Pick<Targets, "valueTargets" | "valueMask"> {
  if (critic !== "step") return { valueTargets: returns, valueMask: batch.mask };
  const valueTargets = batch.sequences.map(() => new Array<number>(batch.width).fill(0));
  const valueMask = batch.sequences.map(() => new Array<number>(batch.width).fill(0));
  batch.episodes.forEach((e, ei) => {
    e.spans.forEach((s, k) => {
      (valueTargets[s.row] as number[])[s.start] = stepReturns?.[ei]?.[k] ?? 0;
      (valueMask[s.row] as number[])[s.start] = 1;
    });
  });
  return { valueTargets, valueMask };
}

function groupsOf(batch: TrainBatch): number[] {
  return batch.episodes.map((e) => e.trajectory.group);
}

/** The row-layout value at position t of row r. */
function at(m: number[][], r: number, t: number): number {
  return m[r]?.[t] ?? 0;
}
