import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../backend/backend.js";
import "./wasm-elementwise.js";

beforeAll(async () => {
  const backend = await initBackend("wasm");
  if (!backend.ok) throw new Error(backend.error);
});

/** `f` on wasm (the SIMD kernels where the shapes fit) and on cpu (tfjs's own), as flat arrays and shapes. */
async function both(f: () => tf.Tensor): Promise<[number[], number[], number[], number[]]> {
  const w = f();
  await tf.setBackend("cpu");
  const c = f();
  const out: [number[], number[], number[], number[]] = [Array.from(c.dataSync()), c.shape, [], []];
  await tf.setBackend("wasm");
  out[2] = Array.from(w.dataSync());
  out[3] = w.shape;
  return out;
}

const values = (n: number, seed: number) => Array.from({ length: n }, (_, i) => Math.sin(seed * 7 + i) * 3);

describe("SIMD Add, Sub and Multiply on tfjs-wasm", () => {
  it("adds two small rows by hand", () => {
    // [1, 2, 3, 4] + [10, 20, 30, 40] = [11, 22, 33, 44]; minus = [−9, −18, −27, −36].
    const a = tf.tensor1d([1, 2, 3, 4]);
    const b = tf.tensor1d([10, 20, 30, 40]);
    expect(Array.from(tf.add(a, b).dataSync())).toEqual([11, 22, 33, 44]);
    expect(Array.from(tf.sub(a, b).dataSync())).toEqual([-9, -18, -27, -36]);
    expect(Array.from(tf.mul(a, b).dataSync())).toEqual([10, 40, 90, 160]);
  });

  // Same shapes, a row repeated, a value per row, a scalar, operands swapped, leading 1s, and shapes
  // the SIMD loops do not take (widths not ÷ 4, a middle axis broadcast), which keep tfjs's kernels.
  const cases: [number[], number[]][] = [
    [
      [6, 8],
      [6, 8],
    ],
    [[6, 8], [8]],
    [[8], [6, 8]],
    [
      [2, 3, 8],
      [3, 8],
    ],
    [
      [6, 8],
      [6, 1],
    ],
    [
      [6, 1],
      [6, 8],
    ],
    [[6, 8], []],
    [[], [6, 8]],
    [
      [1, 6, 8],
      [6, 8],
    ],
    [
      [6, 8],
      [1, 1, 8],
    ],
    [[5, 3], [3]],
    [
      [5, 3],
      [5, 3],
    ],
    [
      [4, 2, 8],
      [4, 1, 8],
    ],
  ];
  it.each(cases)("gives tfjs's values bit for bit for %j and %j", async (sa, sb) => {
    const na = sa.reduce((x, y) => x * y, 1);
    const nb = sb.reduce((x, y) => x * y, 1);
    for (const op of [tf.add, tf.sub, tf.mul]) {
      const [want, wantShape, got, gotShape] = await both(() =>
        op(tf.tensor(values(na, 1), sa), tf.tensor(values(nb, 2), sb)),
      );
      expect(gotShape).toEqual(wantShape);
      expect(got).toEqual(want);
    }
  });

  it("leaves int32 arithmetic to tfjs", () => {
    expect(Array.from(tf.add(tf.tensor1d([1, 2, 3, 4], "int32"), 1).dataSync())).toEqual([2, 3, 4, 5]);
  });
});
