import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { expectClose, useCpu } from "../testing/test-backend.js";
import { gspoLoss, type PolicyLossOptions, ppoLoss } from "./policy-loss.js";

beforeAll(useCpu);

const opts: PolicyLossOptions = { clipLow: 0.2, clipHigh: 0.2, dualClip: 3, aggregation: "token-mean" };

describe("ppoLoss with dual clip", () => {
  // ratios ρ = [1.5, 0.5, 1.1, 5], advantages A = [1, −1, 2, −1]
  const old = tf.tensor2d([[0, 0, 0, 0]]);
  const ratios = [1.5, 0.5, 1.1, 5];
  const advantages = tf.tensor2d([[1, -1, 2, -1]]);
  const mask = tf.tensor2d([[1, 1, 1, 1]]);

  it("computes the clipped surrogate, its metrics and its gradient", () => {
    const logprobs = tf.tensor2d([ratios.map(Math.log)]);
    // t0: max(−1.5, −1.2) = −1.2 (clipped)   t1: max(0.5, 0.8) = 0.8 (clipped), under the cap 3
    // t2: max(−2.2, −2.2) = −2.2             t3: max(5, 1.2) = 5, dual-capped at −A·c = 3
    // token-mean = (−1.2 + 0.8 − 2.2 + 3)/4 = 0.1
    const out = ppoLoss({ logprobs, oldLogprobs: old, advantages, mask }, opts);
    expectClose(out.loss, 0.1);
    expectClose(out.metrics["losses/clipfrac"] as tf.Scalar, 0.5); // t0, t1
    expectClose(out.metrics["losses/dual_clipfrac"] as tf.Scalar, 0.25); // t3
    // approx_kl = mean(old − new) = −ln(1.5·0.5·1.1·5)/4
    expectClose(out.metrics["losses/approx_kl"] as tf.Scalar, -Math.log(4.125) / 4);
    // only t2 is unclipped: ∂/∂logπ (−A·ρ)/4 = −2·1.1/4 = −0.55
    const grad = tf.grad(
      (lp: tf.Tensor) =>
        ppoLoss({ logprobs: lp as tf.Tensor2D, oldLogprobs: old, advantages, mask }, opts).loss,
    )(logprobs);
    expectClose(grad, [[0, 0, -0.55, 0]]);
  });

  it("gives masked (observation) positions exactly zero gradient", () => {
    const logprobs = tf.tensor2d([[0.05, -0.3, 0.02, 0.1]]);
    const obsMask = tf.tensor2d([[1, 0, 1, 0]]);
    const grad = tf.grad(
      (lp: tf.Tensor) =>
        ppoLoss({ logprobs: lp as tf.Tensor2D, oldLogprobs: old, advantages, mask: obsMask }, opts).loss,
    )(logprobs);
    // t0: ρ = e^0.05 ≈ 1.051 unclipped, −A·ρ/2 = −1.0513/2; t2: −2·e^0.02/2
    expectClose(grad, [[-Math.exp(0.05) / 2, 0, -Math.exp(0.02), 0]]);
  });
});

describe("gspoLoss", () => {
  it("uses the sequence geometric-mean ratio for every token", () => {
    // row0: log-ratios [0.2, 0] → s = e^0.1 ≈ 1.10517, A = 1, unclipped: per-token loss −s
    // row1: mask [1, 0], log-ratio ln 0.5 (the masked 9 is ignored) → s = 0.5, A = −1:
    //       max(0.5, 0.8) = 0.8 (clipped)
    // seq-mean-token-mean = (−1.10517 + 0.8)/2
    const logprobs = tf.tensor2d([
      [0.2, 0],
      [Math.log(0.5), 9],
    ]);
    const input = {
      oldLogprobs: tf.zeros([2, 2]) as tf.Tensor2D,
      advantages: tf.tensor2d([
        [1, 1],
        [-1, -1],
      ]),
      mask: tf.tensor2d([
        [1, 1],
        [1, 0],
      ]),
    };
    const o = { ...opts, aggregation: "seq-mean-token-mean" as const };
    const s = Math.exp(0.1);
    expectClose(gspoLoss({ ...input, logprobs }, o).loss, (-s + 0.8) / 2);
    // ∂/∂logπ_t of −s·π/sg(π) averaged over 2 tokens and 2 rows = −s/4; row1 is clipped → 0
    const grad = tf.grad((lp: tf.Tensor) => gspoLoss({ ...input, logprobs: lp as tf.Tensor2D }, o).loss)(
      logprobs,
    );
    expectClose(grad, [
      [-s / 4, -s / 4],
      [0, 0],
    ]);
  });
});

describe("numeric guards", () => {
  const mask = tf.tensor2d([[1, 1]]);
  const old = tf.tensor2d([[0, 0]]);

  it("PPO clamps the log-ratio at ±20, so a ratio of e^100 gives a finite loss and gradient", () => {
    // t0: log-ratio +100 → clamped to 20, ρ = e^20; A = −1 → L1 = e^20, L2 = 1.2, max = e^20,
    //     dual-capped at −A·c = 3. t1: log-ratio 0, ρ = 1, A = 1 → −1. token-mean = (3 − 1)/2 = 1
    const logprobs = tf.tensor2d([[100, 0]]);
    const advantages = tf.tensor2d([[-1, 1]]);
    const input = { oldLogprobs: old, advantages, mask };
    expectClose(ppoLoss({ ...input, logprobs }, opts).loss, 1);
    const grad = tf.grad((lp: tf.Tensor) => ppoLoss({ ...input, logprobs: lp as tf.Tensor2D }, opts).loss)(
      logprobs,
    );
    // t0 is capped (no gradient); t1: ∂(−A·ρ)/∂logπ /2 = −1/2
    expectClose(grad, [[0, -0.5]]);
    // With A = +1 at t0 the unclipped branch is −A·ρ only below 1 + ε; above it L2 wins: L = −1.2.
    const up = ppoLoss({ ...input, advantages: tf.tensor2d([[1, 1]]), logprobs }, opts);
    expectClose(up.loss, (-1.2 - 1) / 2);
    const g2 = tf.grad(
      (lp: tf.Tensor) =>
        ppoLoss({ ...input, advantages: tf.tensor2d([[1, 1]]), logprobs: lp as tf.Tensor2D }, opts).loss,
    )(logprobs);
    expect(Array.from(g2.dataSync()).every(Number.isFinite)).toBe(true);
  });

  it("PPO's log-ratio clamp at −100 keeps a finite loss too", () => {
    // t0: log-ratio −100 → −20, ρ = e^−20 ≈ 2.06e−9; A = 1: L1 = −2.06e−9, L2 = −0.8 → max = −2.06e−9
    const out = ppoLoss(
      { logprobs: tf.tensor2d([[-100, 0]]), oldLogprobs: old, advantages: tf.tensor2d([[1, 1]]), mask },
      opts,
    );
    expectClose(out.loss, (-Math.exp(-20) - 1) / 2);
  });

  it("GSPO has no dual clip, as the reference: a large sequence ratio with A < 0 is not capped", () => {
    // one row, log-ratios [2, 2] → s = e^2 (under GSPO's cap of 10); A = −1: L1 = e^2, L2 = 1.2,
    // L = e^2 ≈ 7.389 > c = 3, which PPO's dual clip would cap at 3 and GSPO keeps.
    const out = gspoLoss(
      {
        logprobs: tf.tensor2d([[2, 2]]),
        oldLogprobs: old,
        advantages: tf.tensor2d([[-1, -1]]),
        mask,
      },
      opts,
    );
    expectClose(out.loss, Math.exp(2));
    expectClose(out.metrics["losses/dual_clipfrac"] as tf.Scalar, 0);
  });
});
