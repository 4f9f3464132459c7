import { beforeAll, describe, expect, it } from "vitest";
import { stepRecord, trajectory } from "../testing/rollout-fixtures.js";
import { useCpu } from "../testing/test-backend.js";
import { buildBatch } from "./batch.js";
import { TrainConfig } from "./config.js";
import type { Scores } from "./score.js";
import { computeTargets } from "./targets.js";

beforeAll(useCpu);

/** Two one-step episodes of one group: prompt [1, 2, 3], response [4, 5], rewards 1 and 0. */
const batch = buildBatch(
  [0, 1].map((e) => trajectory([stepRecord({ episode: e, reward: 1 - e, done: true })])),
  0,
);
/** The old policy's scores: log-probabilities and values all 0. */
const zeros = (): Scores => ({
  logprobs: batch.mask.map((r) => r.map(() => 0)),
  values: batch.mask.map((r) => r.map(() => 0)),
});

describe("computeTargets", () => {
  it("GRPO: the group-normalised outcome on each response token, negatives weighted", () => {
    // Rows of width 5 − 1 = 4; the response is predicted at positions 2 and 3.
    expect(batch.mask).toEqual([
      [0, 0, 1, 1],
      [0, 0, 1, 1],
    ]);
    // s = [1, 0]: mean 0.5, unbiased std √0.5 = 0.7071068; a = ±0.5/(0.7071068 + 1e-6) = ±0.7071058.
    const a = 0.5 / (Math.SQRT1_2 + 1e-6);
    const cfg = TrainConfig.parse({ algorithm: "grpo", negativeAdvantageWeight: 0.25 });
    const t = computeTargets(batch, zeros(), cfg, "grpo");
    const want = [
      [0, 0, a, a],
      [0, 0, -0.25 * a, -0.25 * a],
    ];
    t.advantages.forEach((row, r) => {
      row.forEach((v, i) => {
        expect(v).toBeCloseTo(want[r]?.[i] as number, 5);
      });
    });
  });

  it("StepPO: step advantages whitened over the tokens, value targets at each step's last prompt token", () => {
    const cfg = TrainConfig.parse({ algorithm: "steppo" });
    const t = computeTargets(batch, zeros(), cfg, "steppo");
    // V = 0, γ = λ = 1: A_step = R = [1], [0]. Over the 4 tokens [1, 1, 0, 0]: mean 0.5, unbiased
    // variance 4·0.25/3 = 1/3, so whitened ±0.5/√(1/3 + 1e-8) = ±0.8660254.
    const w = 0.5 / Math.sqrt(1 / 3 + 1e-8);
    expect(t.advantages[0]?.[2]).toBeCloseTo(w, 5);
    expect(t.advantages[1]?.[3]).toBeCloseTo(-w, 5);
    // The value target is the unwhitened step return A + V (1 and 0), at position P − 1 = 2 only.
    expect(t.valueTargets).toEqual([
      [0, 0, 1, 0],
      [0, 0, 0, 0],
    ]);
    expect(t.valueMask).toEqual([
      [0, 0, 1, 0],
      [0, 0, 1, 0],
    ]);
  });
});
