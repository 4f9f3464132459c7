import { beforeAll, describe, expect, it } from "vitest";
import { stepRecord, trajectory } from "../testing/rollout-fixtures.js";
import { useCpu } from "../testing/test-backend.js";
import { buildBatch } from "./batch.js";
import { TrainConfig } from "./config.js";
import type { Scores } from "./score.js";
import { computeTargets, episodeScore } from "./targets.js";

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
  it("GRPO: the group-normalised outcome on each response token, negatives weighted", async () => {
    // Rows of width 5 − 1 = 4; the response is predicted at positions 2 and 3.
    expect(batch.mask).toEqual([
      [0, 0, 1, 1],
      [0, 0, 1, 1],
    ]);
    // s = [1, 0]: mean 0.5, unbiased std √0.5 = 0.7071068; a = ±0.5/(0.7071068 + 1e-6) = ±0.7071058.
    const a = 0.5 / (Math.SQRT1_2 + 1e-6);
    const cfg = TrainConfig.parse({ algorithm: "grpo", negativeAdvantageWeight: 0.25 });
    const t = await computeTargets(batch, zeros(), cfg, "grpo");
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

  it("rewardFrom success: learns from the success verdict alone, not from partial credit", async () => {
    // One group of three one-step episodes with env rewards 0.6 (partial credit: bought, not all of it
    // right), 0 and 1; only the last is a success.
    const partial = buildBatch(
      [0.6, 0, 1].map((reward, e) =>
        trajectory([stepRecord({ episode: e, reward, done: true })], { success: reward === 1 }),
      ),
      0,
    );
    const scores = (): Scores => ({ logprobs: partial.mask.map((r) => r.map(() => 0)) });
    const cfg = TrainConfig.parse({ algorithm: "grpo", rewardFrom: "success", negativeAdvantageWeight: 1 });
    // Success: s = [0, 0, 1], mean 1/3, unbiased std √((1/9 + 1/9 + 4/9)/2) = √(1/3) = 0.5773503,
    // a = (s − 1/3)/(√(1/3) + 1e-6) = −0.5773493, −0.5773493, 1.1546986: the partial credit is pushed down.
    const sd = Math.sqrt(1 / 3) + 1e-6;
    const success = await computeTargets(partial, scores(), cfg, "grpo");
    [-1 / 3 / sd, -1 / 3 / sd, 2 / 3 / sd].forEach((a, r) => {
      expect(success.advantages[r]?.[2]).toBeCloseTo(a, 5);
    });
    // Env rewards: s = [0.6, 0, 1], mean 1.6/3 = 0.5333333, deviations 0.0666667, −0.5333333, 0.4666667,
    // unbiased variance (0.0044444 + 0.2844444 + 0.2177778)/2 = 0.2533333, std 0.5033223: the partial
    // credit is pulled up, a = 0.0666667/(0.5033223 + 1e-6) = 0.1324532.
    const env = await computeTargets(partial, scores(), { ...cfg, rewardFrom: "env" }, "grpo");
    expect(env.advantages[0]?.[2]).toBeCloseTo((0.6 - 1.6 / 3) / (Math.sqrt(0.76 / 3) + 1e-6), 5);
    expect(env.advantages[0]?.[2]).toBeCloseTo(0.1324532, 5);
  });

  it("StepPO: step advantages whitened over the tokens, value targets at each step's last prompt token", async () => {
    const cfg = TrainConfig.parse({ algorithm: "steppo" });
    const t = await computeTargets(batch, zeros(), cfg, "steppo");
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

describe("episodeScore", () => {
  it("sums the env's step rewards, or counts only success", () => {
    // Step rewards 0.25 (a process reward) and 0.5 (partial credit), not a success.
    const partial = trajectory(
      [stepRecord({ reward: 0.25 }), stepRecord({ step: 1, reward: 0.5, done: true })],
      {
        success: false,
      },
    );
    expect(episodeScore(partial, "env")).toBe(0.75);
    expect(episodeScore(partial, "success")).toBe(0);
    const solved = trajectory([stepRecord({ reward: 0.25 }), stepRecord({ step: 1, reward: 1, done: true })]);
    expect(episodeScore(solved, "env")).toBe(1.25);
    expect(episodeScore(solved, "success")).toBe(1);
  });
});
