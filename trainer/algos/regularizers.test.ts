import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { expectClose, useCpu } from "../testing/test-backend.js";
import {
  clipGradNorm,
  entropyBonus,
  entropyFromLogits,
  klLoss,
  klRewardPenalty,
  lowVarKl,
  valueLoss,
} from "./regularizers.js";

beforeAll(useCpu);

describe("KL to the reference", () => {
  // x = ln 0.25 − ln 0.5 = −ln 2; kl = e^x − x − 1 = 0.5 + ln 2 − 1
  const k3 = 0.5 + Math.LN2 - 1;
  const logprobs = tf.tensor2d([[Math.log(0.5), -1]]);
  const ref = tf.tensor2d([[Math.log(0.25), -1]]);
  const mask = tf.tensor2d([[1, 1]]);

  it("low_var_kl is k3 and zero when the policies agree", () => {
    expectClose(lowVarKl(logprobs, ref), [[k3, 0]]);
  });

  it("as a loss: β·token-mean", () => {
    // 0.1·(k3 + 0)/2
    expectClose(klLoss(logprobs, ref, mask, 0.1, "token-mean"), (0.1 * k3) / 2);
  });

  it("as a reward penalty: r − β·kl on trained tokens only", () => {
    const r = tf.tensor2d([[1, 1]]);
    expectClose(klRewardPenalty(r, logprobs, ref, tf.tensor2d([[1, 0]]), 0.5), [[1 - 0.5 * k3, 1]]);
  });
});

describe("entropy", () => {
  it("is ln 2 for a fair coin and −Σp ln p for [1/4, 3/4]", () => {
    const logits = tf.tensor3d([[[0, 0]], [[0, Math.log(3)]]]);
    const h = -(0.25 * Math.log(0.25) + 0.75 * Math.log(0.75));
    expectClose(entropyFromLogits(logits), [[Math.LN2], [h]]);
    // bonus = −c·mean(H) = −0.01·(ln 2 + h)/2
    const bonus = entropyBonus(entropyFromLogits(logits), tf.ones([2, 1]), 0.01, "token-mean");
    expectClose(bonus, (-0.01 * (Math.LN2 + h)) / 2);
  });
});

describe("valueLoss", () => {
  it("takes the worse of the raw and clipped errors", () => {
    // V = 1, V_old = 0.5, R = 2, ε = 0.2: raw (1 − 2)² = 1, clipped (0.7 − 2)² = 1.69 → ½·1.69
    const one = (v: number) => tf.tensor2d([[v]]);
    expectClose(valueLoss(one(1), one(0.5), one(2), one(1), 0.2, "token-mean"), 0.845);
  });
});

describe("clipGradNorm", () => {
  it("scales by max/‖g‖ when the global norm is over the limit", async () => {
    // ‖(3, 4)‖ = 5 → scale 1/5
    const out = await clipGradNorm({ a: tf.tensor1d([3]), b: tf.tensor1d([4]) }, 1);
    expect(out.norm).toBeCloseTo(5, 5);
    expectClose(out.grads.a as tf.Tensor, [0.6]);
    expectClose(out.grads.b as tf.Tensor, [0.8]);
  });

  it("leaves small gradients alone", async () => {
    const out = await clipGradNorm({ a: tf.tensor1d([3]), b: tf.tensor1d([4]) }, 10);
    expectClose(out.grads.a as tf.Tensor, [3]);
  });
});

describe("KL numeric guard", () => {
  it("clamps the exponent at ±20: a log-ratio of 100 gives a finite KL and gradient", () => {
    // x = 100 − 0 → clamped to 20: e^20 − 20 − 1 ≈ 4.85e8, then the output clamp gives 10.
    // x = −100 → −20: e^−20 + 20 − 1 ≈ 19.0 → 10.
    const logprobs = tf.tensor2d([[0, 100]]);
    const ref = tf.tensor2d([[100, 0]]);
    expectClose(lowVarKl(logprobs, ref), [[10, 10]]);
    const grad = tf.grad((lp: tf.Tensor) =>
      klLoss(lp as tf.Tensor2D, ref, tf.ones([1, 2]), 0.1, "token-mean"),
    )(logprobs);
    // both tokens sit on the outer clamp, whose gradient is 0 (not ∞·0 = NaN)
    expectClose(grad, [[0, 0]]);
  });
});
