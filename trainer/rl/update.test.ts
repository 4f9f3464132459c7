import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { ppoLoss } from "../algos/index.js";
import { initBackend } from "../backend/backend.js";
import { createModel } from "../model/create-model.js";
import { frozenCopy } from "../model/frozen-copy.js";
import type { PolicyModel } from "../model/types.js";
import type { Trajectory } from "../rollout/types.js";
import { stepRecord, trajectory } from "../testing/rollout-fixtures.js";
import { buildBatch, toFlat } from "./batch.js";
import { TrainConfig } from "./config.js";
import { rlUpdate } from "./update.js";

beforeAll(async () => {
  await initBackend("cpu");
});

const PAD = 256;
const step = stepRecord;

/** Episode `e` of group `g`: a call step, then an answer whose prompt appends observation ids 9, 9. */
function episode(e: number, g: number, reward: number): Trajectory {
  const first = step({ episode: e, group: g, promptIds: [1, 2, 3], responseIds: [4, 5 + e] });
  const second = step({
    episode: e,
    group: g,
    step: 1,
    promptIds: [1, 2, 3, 4, 5 + e, 9, 9],
    responseIds: [7, 8, 10],
    responseLogprobs: [-1, -1, -1],
    reward,
    done: true,
  });
  return trajectory([first, second]);
}

function model(valueHead: boolean): PolicyModel {
  const m = createModel(
    { dModel: 16, nLayers: 1, nHeads: 2, nKvHeads: 2, dFf: 32, contextLength: 64, valueHead },
    { seed: 3 },
  );
  if (!m.ok) throw new Error(m.error);
  return m.value;
}

describe("the training batch", () => {
  it("masks prompt and observation positions: their loss gradient is exactly zero", () => {
    const batch = buildBatch([episode(0, 0, 1)], PAD);
    // Row 1: prompt [1,2,3,4,5,9,9] (P = 7) then response [7,8,10]: trained positions 6, 7, 8 only.
    expect(batch.mask[1]).toEqual([0, 0, 0, 0, 0, 0, 1, 1, 1]);
    expect(batch.targets[1]?.slice(6, 9)).toEqual([7, 8, 10]);
    const m = model(false);
    const ids = tf.tensor2d(batch.ids, undefined, "int32");
    const targets = tf.tensor2d(batch.targets, undefined, "int32");
    const mask = tf.tensor2d(batch.mask);
    const lp = m.logprobsOf(ids, targets);
    // π_old a little below π_θ keeps every ratio inside the clip range, where the gradient is −A·ρ.
    const old = tf.sub(lp, 0.05) as tf.Tensor2D;
    const grad = tf.grad(
      (x: tf.Tensor) =>
        ppoLoss(
          {
            logprobs: x as tf.Tensor2D,
            oldLogprobs: old,
            advantages: tf.ones(lp.shape) as tf.Tensor2D,
            mask,
          },
          { clipLow: 0.2, clipHigh: 0.2, dualClip: 3, aggregation: "token-mean" },
        ).loss,
    )(tf.clone(lp));
    const g = grad.arraySync() as number[][];
    batch.mask.forEach((row, r) => {
      row.forEach((on, t) => {
        if (on === 0) expect(Math.abs(g[r]?.[t] ?? Number.NaN)).toBe(0);
        else expect(g[r]?.[t]).not.toBe(0);
      });
    });
  });
});

describe("the merged training batch", () => {
  it("puts an append-mode episode in one row, masking both responses", () => {
    const batch = buildBatch([episode(0, 0, 1)], PAD, true);
    // Sequence [1,2,3,4,5,9,9,7,8,10]: response [4,5] after a 3-id prompt is predicted at positions
    // 3 − 1 = 2 and 3; response [7,8,10] after the 7-id prompt at 6, 7 and 8. T = 10 − 1 = 9.
    expect(batch.sequences).toHaveLength(1);
    expect(batch.mask[0]).toEqual([0, 0, 1, 1, 0, 0, 1, 1, 1]);
    expect(batch.targets[0]?.filter((_, t) => batch.mask[0]?.[t] === 1)).toEqual([4, 5, 7, 8, 10]);
    expect(batch.episodes[0]?.spans).toEqual([
      { row: 0, start: 2, length: 2 },
      { row: 0, start: 6, length: 3 },
    ]);
  });

  it("starts a new row where a step's prompt does not extend the last (replace mode)", () => {
    const replaced = episode(0, 0, 1);
    const second = replaced.steps[1];
    if (!second) throw new Error("fixture has two steps");
    replaced.steps[1] = { ...second, promptIds: [1, 2, 9, 9] };
    const batch = buildBatch([replaced], PAD, true);
    expect(batch.episodes[0]?.spans).toEqual([
      { row: 0, start: 2, length: 2 },
      { row: 1, start: 3, length: 3 },
    ]);
  });

  it("scores every response id exactly as the one-row-per-step layout does", () => {
    const m = model(false);
    const episodes = [episode(0, 0, 1), episode(1, 0, 0)];
    const flatLogprobs = (merge: boolean) => {
      const batch = buildBatch(episodes, PAD, merge);
      const lp = m
        .logprobsOf(
          tf.tensor2d(batch.ids, undefined, "int32"),
          tf.tensor2d(batch.targets, undefined, "int32"),
        )
        .arraySync() as number[][];
      return toFlat(batch, (r, t) => lp[r]?.[t] ?? Number.NaN);
    };
    const merged = flatLogprobs(true).flat();
    const perStep = flatLogprobs(false).flat();
    expect(merged).toHaveLength(2 * 5);
    merged.forEach((v, i) => {
      expect(v).toBeCloseTo(perStep[i] as number, 5);
    });
  });
});

describe("rlUpdate", () => {
  const trajectories = [episode(0, 0, 1), episode(1, 0, 0), episode(2, 1, 1), episode(3, 1, 0)];
  for (const [algorithm, valueHead] of [
    ["grpo", false],
    ["rloo", false],
    ["reinforce++", false],
    ["gae", true],
    ["steppo", true],
  ] as const) {
    it(`${algorithm}: one update moves the weights and reports losses`, async () => {
      const m = model(valueHead);
      const before = (m.trainableVariables[0] as tf.Variable).arraySync();
      const config = TrainConfig.parse({ algorithm, policyLoss: algorithm === "steppo" ? "gspo" : "ppo" });
      const out = await rlUpdate(
        { model: m, optimizer: tf.train.adam(1e-2), config, pad: PAD },
        trajectories,
      );
      expect(out.metrics["losses/policy"]).toBeTypeOf("number");
      expect(Number.isFinite(out.metrics["grad/norm"])).toBe(true);
      if (valueHead) expect(out.metrics["losses/value"]).toBeGreaterThan(0);
      // GSPO scores each step as its own row: 4 episodes × (5 + 10) ids. PPO merges each episode's
      // two steps into its last row: 4 × 10 ids.
      expect(out.trainTokens).toBe(algorithm === "steppo" ? 60 : 40);
      expect((m.trainableVariables[0] as tf.Variable).arraySync()).not.toEqual(before);
    });
  }

  it("with a KL reward penalty against a frozen reference and PRIME-normalised process rewards", async () => {
    const m = model(false);
    const reference = frozenCopy(m, 3);
    if (!reference.ok) throw new Error(reference.error);
    const config = TrainConfig.parse({ klCoef: 0.1, klMode: "reward", processRewardNorm: "prime" });
    const out = await rlUpdate(
      { model: m, optimizer: tf.train.adam(1e-2), config, pad: PAD, reference: reference.value },
      trajectories,
    );
    // The reference equals the policy before the update, so the KL is 0 and the penalty changes nothing.
    expect(out.metrics["losses/kl"]).toBeCloseTo(0, 6);
    expect(Number.isFinite(out.metrics["losses/policy"])).toBe(true);
  });
});
