import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../backend/backend.js";
import "./wasm-kernels.js";

beforeAll(async () => {
  const backend = await initBackend("wasm");
  if (!backend.ok) throw new Error(backend.error);
});

describe("copy-free tfjs-wasm kernels", () => {
  it("clones by sharing the buffer, and the clone outlives the original", () => {
    const x = tf.tensor2d([
      [1, 2],
      [3, 4],
    ]);
    const before = tf.backend().numDataIds();
    const y = tf.clone(x);
    // No new buffer in wasm memory.
    expect(tf.backend().numDataIds()).toBe(before);
    x.dispose();
    expect(Array.from(y.dataSync())).toEqual([1, 2, 3, 4]);
    y.dispose();
  });

  it("slices contiguous and strided boxes of every rank like tfjs", () => {
    // x[i, j, k] = 100·i + 10·j + k over [3, 4, 5].
    const values = Array.from(
      { length: 60 },
      (_, n) => 100 * Math.floor(n / 20) + 10 * (Math.floor(n / 5) % 4) + (n % 5),
    );
    const x = tf.tensor3d(values, [3, 4, 5]);
    // Rows 1..2 of every block, columns 2..4: x[i, j, k] for i ∈ {0,1,2}, j ∈ {1,2}, k ∈ {2,3}.
    expect(tf.slice(x, [0, 1, 2], [3, 2, 2]).arraySync()).toEqual([
      [
        [12, 13],
        [22, 23],
      ],
      [
        [112, 113],
        [122, 123],
      ],
      [
        [212, 213],
        [222, 223],
      ],
    ]);
    // A contiguous piece: block 2, rows 0..1, all columns.
    expect(Array.from(tf.slice(x, [2, 0, 0], [1, 2, -1]).dataSync())).toEqual([
      200, 201, 202, 203, 204, 210, 211, 212, 213, 214,
    ]);
    // Int32 and 1-D.
    expect(Array.from(tf.slice(tf.tensor1d([5, 6, 7, 8], "int32"), [1], [2]).dataSync())).toEqual([6, 7]);
  });

  it("gathers whole rows by index, repeated and out of order, and refuses an index out of range", () => {
    const table = tf.tensor2d([
      [0, 1],
      [10, 11],
      [20, 21],
    ]);
    expect(tf.gather(table, tf.tensor1d([2, 0, 2], "int32")).arraySync()).toEqual([
      [20, 21],
      [0, 1],
      [20, 21],
    ]);
    // [2, 1] indices give [2, 1, 2] rows.
    expect(tf.gather(table, tf.tensor2d([[1], [0]], undefined, "int32")).shape).toEqual([2, 1, 2]);
    expect(() => tf.gather(table, tf.tensor1d([3], "int32"))).toThrow(/not in \[0, 2\]/);
  });
});
