import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { expectClose, useCpu } from "../testing/test-backend.js";
import { DEFAULT_ADVANTAGE_OPTIONS } from "./advantages.js";
import { gae, steppo } from "./gae.js";

beforeAll(useCpu);

describe("gae (token level)", () => {
  it("runs the recursion backwards and skips masked positions", async () => {
    // γ = 1, λ = 0.5, V = [0.5, 0.6, 0.8], r = [0, 0, 1]
    // row0 (all live): t2: δ = 1 − 0.8 = 0.2, A = 0.2, R = 1.0
    //                  t1: δ = 0 + 0.8 − 0.6 = 0.2, A = 0.2 + 0.5·0.2 = 0.3, R = 0.9
    //                  t0: δ = 0 + 0.6 − 0.5 = 0.1, A = 0.1 + 0.5·0.3 = 0.25, R = 0.75
    // row1 (t1 masked): t2 as above; t0: δ = 0 + 0.8 − 0.5 = 0.3, A = 0.3 + 0.5·0.2 = 0.4, R = 0.9
    const out = await gae(
      {
        tokenRewards: tf.tensor2d([
          [0, 0, 1],
          [0, 0, 1],
        ]),
        values: tf.tensor2d([
          [0.5, 0.6, 0.8],
          [0.5, 0.6, 0.8],
        ]),
        mask: tf.tensor2d([
          [1, 1, 1],
          [1, 0, 1],
        ]),
        groups: [0, 0],
      },
      { ...DEFAULT_ADVANTAGE_OPTIONS, gamma: 1, lambda: 0.5, whiten: false },
    );
    expectClose(out.advantages, [
      [0.25, 0.3, 0.2],
      [0.4, 0, 0.2],
    ]);
    expectClose(out.returns, [
      [0.75, 0.9, 1],
      [0.9, 0, 1],
    ]);
  });
});

describe("steppo (step level)", () => {
  it("runs GAE over steps and broadcasts each step's advantage to its tokens", async () => {
    // Steps: tokens 0–1 are step 0 (reward 0.1 at its last token), tokens 2–4 step 1 (reward 1); 5 pads.
    // γ = 0.9, λ = 1, V(step) = [0.4, 0.7]
    // k1: δ = 1 + 0 − 0.7 = 0.3, A = 0.3, R = 1.0
    // k0: δ = 0.1 + 0.9·0.7 − 0.4 = 0.33, A = 0.33 + 0.9·0.3 = 0.6, R = 1.0
    const out = await steppo(
      {
        tokenRewards: tf.tensor2d([[0, 0.1, 0, 0, 1, 0]]),
        mask: tf.tensor2d([[1, 1, 1, 1, 1, 0]]),
        tokenStep: tf.tensor2d([[0, 0, 1, 1, 1, -1]], undefined, "int32"),
        stepValues: tf.tensor2d([[0.4, 0.7]]),
        groups: [0],
      },
      { ...DEFAULT_ADVANTAGE_OPTIONS, gamma: 0.9, lambda: 1, whiten: false },
    );
    expectClose(out.advantages, [[0.6, 0.6, 0.3, 0.3, 0.3, 0]]);
    expect(out.stepReturns).toBeDefined();
    expectClose(out.stepReturns as tf.Tensor, [[1, 1]]);
  });

  it("whitening leaves zero mean over live tokens", async () => {
    const out = await steppo(
      {
        tokenRewards: tf.tensor2d([[0, 0.1, 0, 0, 1, 0]]),
        mask: tf.tensor2d([[1, 1, 1, 1, 1, 0]]),
        tokenStep: tf.tensor2d([[0, 0, 1, 1, 1, -1]], undefined, "int32"),
        stepValues: tf.tensor2d([[0.4, 0.7]]),
        groups: [0],
      },
      { ...DEFAULT_ADVANTAGE_OPTIONS, gamma: 0.9, lambda: 1, whiten: true },
    );
    // raw [0.6, 0.6, 0.3, 0.3, 0.3]: mean 0.42, deviations ±; sum of whitened values is 0
    const a = (out.advantages.arraySync() as number[][])[0] as number[];
    expect(a.reduce((x, y) => x + y)).toBeCloseTo(0, 5);
    // (0.6 − 0.42)/sqrt((2·0.18² + 3·0.12²)/4) = 0.18/sqrt(0.027)
    expect(a[0]).toBeCloseTo(0.18 / Math.sqrt(0.027), 4);
  });
});
