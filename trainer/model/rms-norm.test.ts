import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../backend/backend.js";
import { rmsNorm } from "./rms-norm.js";

beforeAll(async () => {
  const backend = await initBackend("wasm");
  if (!backend.ok) throw new Error(backend.error);
});

const byOps = (x: tf.Tensor, w: tf.Tensor1D, eps: number) =>
  tf.mul(tf.mul(x, tf.rsqrt(tf.add(tf.mean(tf.square(x), -1, true), eps))), w);

describe("RMSNorm", () => {
  it("normalises a row by hand", () => {
    // x = [1, 1, 1, 1, 3, 3, 3, 3]: mean(x²) = (4 + 36) / 8 = 5, so x / √5; w doubles the last column.
    const x = tf.tensor2d([[1, 1, 1, 1, 3, 3, 3, 3]]);
    const w = tf.tensor1d([1, 1, 1, 1, 1, 1, 1, 2]);
    const got = Array.from(rmsNorm(x, w, 0).dataSync());
    const s = 1 / Math.sqrt(5);
    [s, s, s, s, 3 * s, 3 * s, 3 * s, 6 * s].forEach((v, i) => {
      expect(got[i]).toBeCloseTo(v, 6);
    });
  });

  it("fuses the forward pass on wasm with tfjs's values up to rounding, and keeps tfjs's ops under a gradient", () => {
    const x = tf.randomNormal([2, 5, 16], 0, 2, "float32", 1);
    const w = tf.randomNormal([16], 1, 0.1, "float32", 2) as tf.Tensor1D;
    const diff = tf.max(tf.abs(tf.sub(rmsNorm(x, w, 1e-6), byOps(x, w, 1e-6)))).dataSync()[0] as number;
    expect(diff).toBeLessThan(1e-5);
    const info = tf.grad((v: tf.Tensor) => tf.sum(rmsNorm(v, w, 1e-6)))(x);
    const want = tf.grad((v: tf.Tensor) => tf.sum(byOps(v, w, 1e-6)))(x);
    expect(Array.from(info.dataSync())).toEqual(Array.from(want.dataSync()));
  });
});
