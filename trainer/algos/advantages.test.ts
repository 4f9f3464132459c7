import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, it } from "vitest";
import { expectClose, useCpu } from "../testing/test-backend.js";
import {
  type AdvantageInput,
  DEFAULT_ADVANTAGE_OPTIONS,
  drGrpo,
  grpo,
  reinforcePlusPlus,
  reinforcePlusPlusBaseline,
  rloo,
  weighNegativeAdvantages,
} from "./advantages.js";

beforeAll(useCpu);

// Scores s = Σ r·m: row0 = 1, row1 = 0, row2 = 1 (group 0), row3 = 0.5 alone in group 1.
const input = (): AdvantageInput => ({
  tokenRewards: tf.tensor2d([
    [0, 1, 0],
    [0, 0, 0],
    [0, 0, 1],
    [0.5, 0, 0],
  ]),
  mask: tf.tensor2d([
    [1, 1, 0],
    [1, 1, 1],
    [1, 1, 1],
    [1, 0, 0],
  ]),
  groups: [0, 0, 0, 1],
});
const opts = { ...DEFAULT_ADVANTAGE_OPTIONS, eps: 0 };

describe("outcome estimators", () => {
  it("grpo: (s − mean)/std within the group", async () => {
    // group 0: mean = 2/3, unbiased std = sqrt(((1/3)² + (2/3)² + (1/3)²)/2) = sqrt(1/3)
    const std = Math.sqrt(1 / 3);
    const hi = 1 / 3 / std; // (1 − 2/3)/std
    const lo = -2 / 3 / std; // (0 − 2/3)/std
    expectClose((await grpo(input(), opts)).advantages, [
      [hi, hi, 0],
      [lo, lo, lo],
      [hi, hi, hi],
      [0.5, 0, 0], // singleton keeps its score
    ]);
  });

  it("dr-grpo: s − mean, no std", async () => {
    expectClose((await drGrpo(input(), opts)).advantages, [
      [1 / 3, 1 / 3, 0],
      [-2 / 3, -2 / 3, -2 / 3],
      [1 / 3, 1 / 3, 1 / 3],
      [0.5, 0, 0],
    ]);
  });

  it("rloo: s − mean of the others", async () => {
    // row0: 1 − (0 + 1)/2 = 0.5; row1: 0 − (1 + 1)/2 = −1; row2: 1 − (1 + 0)/2 = 0.5
    expectClose((await rloo(input())).advantages, [
      [0.5, 0.5, 0],
      [-1, -1, -1],
      [0.5, 0.5, 0.5],
      [0.5, 0, 0],
    ]);
  });
});

describe("reinforce++", () => {
  it("discounted return-to-go, whitened over the batch", async () => {
    // γ = 0.5. row0: G2 = 1, G1 = 0.2 + 0.5·1 = 0.7, G0 = 0 + 0.5·0.7 = 0.35. row1: G0 = 0.4.
    const out = await reinforcePlusPlus(
      {
        tokenRewards: tf.tensor2d([
          [0, 0.2, 1],
          [0.4, 0, 0],
        ]),
        mask: tf.tensor2d([
          [1, 1, 1],
          [1, 0, 0],
        ]),
        groups: [0, 1],
      },
      { ...opts, gamma: 0.5 },
    );
    expectClose(out.returns, [
      [0.35, 0.7, 1],
      [0.4, 0, 0],
    ]);
    // mean = (0.35 + 0.7 + 1 + 0.4)/4 = 0.6125; unbiased var = (0.2625² + 0.0875² + 0.3875² + 0.2125²)/3
    const std = Math.sqrt((0.2625 ** 2 + 0.0875 ** 2 + 0.3875 ** 2 + 0.2125 ** 2) / 3);
    expectClose(out.advantages, [
      [-0.2625 / std, 0.0875 / std, 0.3875 / std],
      [-0.2125 / std, 0, 0],
    ]);
  });

  it("baseline variant: s − group mean, then whitened", async () => {
    // centred: row0 1/3 (2 tokens), row1 −2/3 (3), row2 1/3 (3), row3 0.5 (1); 9 tokens
    const values = [1 / 3, 1 / 3, -2 / 3, -2 / 3, -2 / 3, 1 / 3, 1 / 3, 1 / 3, 0.5];
    const mean = values.reduce((a, b) => a + b) / 9; // = 0.5/9
    const std = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / 8);
    const w = (v: number) => (v - mean) / std;
    expectClose((await reinforcePlusPlusBaseline(input(), opts)).advantages, [
      [w(1 / 3), w(1 / 3), 0],
      [w(-2 / 3), w(-2 / 3), w(-2 / 3)],
      [w(1 / 3), w(1 / 3), w(1 / 3)],
      [w(0.5), 0, 0],
    ]);
  });
});

describe("weighNegativeAdvantages", () => {
  it("scales only the negative advantages by w", () => {
    const a = tf.tensor2d([
      [1.5, -2, 0],
      [-0.5, 0.25, -1],
    ]);
    // w = 0.25: −2·0.25 = −0.5, −0.5·0.25 = −0.125, −1·0.25 = −0.25; 1.5, 0 and 0.25 stay.
    expectClose(weighNegativeAdvantages(a, 0.25), [
      [1.5, -0.5, 0],
      [-0.125, 0.25, -0.25],
    ]);
    // w = 0 keeps only what beat its baseline.
    expectClose(weighNegativeAdvantages(a, 0), [
      [1.5, 0, 0],
      [0, 0.25, 0],
    ]);
  });
});
