import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, it } from "vitest";
import { gspoLoss, type PolicyLossOptions, ppoLoss } from "./policy-loss.js";
import { expectClose, useCpu } from "./test-backend.js";

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
