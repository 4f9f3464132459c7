import * as tf from "@tensorflow/tfjs-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../backend/backend.js";
import {
  addRow,
  batchMatmul,
  batchMatmulT,
  columnSums,
  kernelsOf,
  mulRow,
  product,
  type WasmBackendInternals,
} from "./batch-matmul.js";
import { instantiateSimd, type SimdKernels, simdModuleBytes } from "./simd-module.js";

const swap = (x: tf.Tensor) => tf.transpose(x, [0, 1, 3, 2]);
const maxDiff = (x: tf.Tensor, y: tf.Tensor) => tf.tidy(() => tf.max(tf.abs(tf.sub(x, y))).dataSync()[0]);

beforeAll(async () => {
  const backend = await initBackend("wasm");
  if (!backend.ok) throw new Error(backend.error);
});
afterAll(async () => {
  await tf.setBackend("wasm");
});

describe("SIMD batched products on tfjs-wasm", () => {
  it("loads the SIMD module into tfjs-wasm's memory and runs products there", async () => {
    const memory = (tf.backend() as unknown as { wasm: { asm: { memory: WebAssembly.Memory } } }).wasm.asm
      .memory;
    expect(instantiateSimd(memory)).not.toBeNull();
    const a = tf.ones([1, 2, 3, 4]);
    const info = await tf.profile(() => product("nt", a, a));
    expect(info.kernels.map((k) => k.name)).toEqual(["EdgegymBatchMatMul"]);
  });

  it("builds with and without fused multiply-adds, and both blockings give the same small product", () => {
    const memory = new WebAssembly.Memory({ initial: 1 });
    const f = new Float32Array(memory.buffer);
    // A = [[1, 2], [3, 4], [5, 6], [7, 8]] at 0, B = 2×8 with rows [1…8] and [1, 0, 1, 0, …] at 64 bytes.
    f.set([1, 2, 3, 4, 5, 6, 7, 8], 0);
    f.set([1, 2, 3, 4, 5, 6, 7, 8, 1, 0, 1, 0, 1, 0, 1, 0], 16);
    // Row i of A·B = A[i,0]·[1…8] + A[i,1]·[1,0,1,0,…]; row 0 = [1+2, 2, 3+2, 4, 5+2, 6, 7+2, 8].
    const want = [3, 2, 5, 4, 7, 6, 9, 8];
    for (const fma of [false, true]) {
      let kernels: SimdKernels;
      try {
        const module = new WebAssembly.Module(simdModuleBytes(fma));
        kernels = new WebAssembly.Instance(module, { env: { memory } }).exports as unknown as SimdKernels;
      } catch (e) {
        // Only the relaxed-SIMD build may be missing (Node 20).
        expect(fma).toBe(true);
        expect(String(e)).toMatch(/relaxed|opcode/);
        continue;
      }
      for (const name of ["axpy1x1", "axpy4x2", "axpy4x1"] as const) {
        f.fill(0, 64, 96);
        kernels[name](0, 64, 256, 1, 4, 32, 2, 0, 0, 8, 4, 32);
        expect(Array.from(f.subarray(64, 72))).toEqual(want);
      }
      // The acc form adds to what the output holds: row 0 again from 100s is [103, 102, 105, …].
      for (const name of ["axpy4x2acc", "axpy4x1acc"] as const) {
        f.fill(100, 64, 96);
        kernels[name](0, 64, 256, 1, 4, 32, 2, 0, 0, 8, 4, 32);
        expect(Array.from(f.subarray(64, 72))).toEqual(want.map((x) => x + 100));
      }
    }
  });

  it("computes a small product by hand in each mode", () => {
    // a = [[1, 2, 3, 4]], b = [[1, 1, 1, 1], [0, 1, 0, 1]]:
    // a·bᵀ = [[1+2+3+4, 2+4]] = [[10, 6]].
    const a = tf.tensor4d([[[[1, 2, 3, 4]]]]);
    const b = tf.tensor4d([
      [
        [
          [1, 1, 1, 1],
          [0, 1, 0, 1],
        ],
      ],
    ]);
    expect(Array.from(product("nt", a, b).dataSync())).toEqual([10, 6]);
    // bᵀ·b is 4×4 (tn); its row i is Σ_r b[r, i]·b[r, :] = [1,1,1,1] + (i odd ? [0,1,0,1] : 0).
    expect(Array.from(product("tn", b, b).dataSync())).toEqual([
      1, 1, 1, 1, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1, 2,
    ]);
    // [[10, 6]]·b (nn) = 10·[1,1,1,1] + 6·[0,1,0,1] = [10, 16, 10, 16].
    expect(Array.from(product("nn", tf.tensor4d([[[[10, 6]]]]), b).dataSync())).toEqual([10, 16, 10, 16]);
  });

  // Widths that take the 4- and 16-lane loops and ones that fall back to tf.matMul (k or n not ÷ 4).
  const shapes = [
    { m: 96, k: 32, n: 96 },
    { m: 1, k: 32, n: 37 },
    { m: 5, k: 6, n: 12 },
    { m: 8, k: 20, n: 12 },
    { m: 7, k: 8, n: 5 },
  ];
  it.each(shapes)("matches tf.matMul up to float rounding for m=$m k=$k n=$n", ({ m, k, n }) => {
    const a = tf.randomNormal([2, 3, m, k], 0, 1, "float32", 1);
    const b = tf.randomNormal([2, 3, k, n], 0, 1, "float32", 2);
    const bt = tf.randomNormal([2, 3, n, k], 0, 1, "float32", 3);
    const at = tf.randomNormal([2, 3, k, m], 0, 1, "float32", 4);
    expect(maxDiff(product("nn", a, b), tf.matMul(a, b))).toBeLessThan(1e-4);
    expect(maxDiff(product("nt", a, bt), tf.matMul(a, swap(bt)))).toBeLessThan(1e-4);
    expect(maxDiff(product("tn", at, b), tf.matMul(swap(at), b))).toBeLessThan(1e-4);
  });

  it("splits a long k into chunks without changing a bit, in both modes, remainder rows included", () => {
    // k = 300 runs as chunks of 64, 64, 64, 64, 44; m = 10 is 8 blocked rows and 2 left over.
    const a = tf.randomNormal([1, 10, 300], 0, 1, "float32", 13);
    const at = tf.randomNormal([1, 300, 12], 0, 1, "float32", 14);
    const b = tf.randomNormal([1, 300, 16], 0, 1, "float32", 15);
    expect(maxDiff(product("nn", a, b), tf.matMul(a, b))).toBeLessThan(1e-3);
    expect(maxDiff(product("tn", at, b), tf.matMul(at, b, true))).toBeLessThan(1e-3);
    // 12 columns: blocks of 4 rows × 4 columns, chunked the same way.
    const b12 = tf.randomNormal([1, 300, 12], 0, 1, "float32", 16);
    expect(maxDiff(product("nn", a, b12), tf.matMul(a, b12))).toBeLessThan(1e-3);
    // The same blocked product in one pass over all 300 rows of b, straight from the kernel.
    const be = tf.backend() as unknown as WasmBackendInternals;
    const simd = kernelsOf(be) as SimdKernels;
    const chunked = product("nn", a, b);
    const whole = tf.zerosLike(chunked);
    const at0 = (t: tf.Tensor) => be.dataIdMap.get(t.dataId).memoryOffset;
    simd.axpy4x2(at0(a), at0(b), at0(whole), 1, 8, 64, 300, 0, 0, 1200, 4, 64);
    expect(Array.from(chunked.dataSync().subarray(0, 128))).toEqual(
      Array.from(whole.dataSync().subarray(0, 128)),
    );
    // An empty k still writes the zeros.
    expect(Array.from(product("nn", tf.ones([1, 4, 0]), tf.ones([1, 0, 8])).dataSync())).toEqual(
      Array(32).fill(0),
    );
  });

  it("gives the gradients of tf.matMul", () => {
    const a = tf.randomNormal([2, 2, 12, 8], 0, 1, "float32", 5);
    const b = tf.randomNormal([2, 2, 8, 16], 0, 1, "float32", 6);
    const w = tf.randomNormal([2, 2, 12, 16], 0, 1, "float32", 7);
    const loss = (f: (x: tf.Tensor, y: tf.Tensor) => tf.Tensor) => (x: tf.Tensor, y: tf.Tensor) =>
      tf.sum(tf.mul(f(x, y), w));
    const want = tf.grads(loss((x, y) => tf.matMul(x, y)))([a, b]);
    const got = tf.grads(loss((x, y) => batchMatmul(x, y)))([a, b]);
    const gotT = tf.grads(loss((x, y) => batchMatmulT(x, swap(y))))([a, b]);
    for (const g of [got, gotT]) {
      expect(maxDiff(g[0] as tf.Tensor, want[0] as tf.Tensor)).toBeLessThan(1e-4);
      expect(maxDiff(g[1] as tf.Tensor, want[1] as tf.Tensor)).toBeLessThan(1e-4);
    }
  });

  it("is tf.matMul itself on the cpu backend", async () => {
    await tf.setBackend("cpu");
    const a = tf.randomNormal([1, 2, 5, 8], 0, 1, "float32", 8);
    const b = tf.randomNormal([1, 2, 6, 8], 0, 1, "float32", 9);
    expect(maxDiff(product("nt", a, b), tf.matMul(a, swap(b)))).toBe(0);
    await tf.setBackend("wasm");
  });

  it("sums columns by hand, and gives a bias's and a row weight's gradients as tfjs does", () => {
    // Column sums of [[1, 2, 3, 4], [10, 20, 30, 40]] = [11, 22, 33, 44].
    expect(
      Array.from(
        columnSums(
          tf.tensor2d([
            [1, 2, 3, 4],
            [10, 20, 30, 40],
          ]),
        ).dataSync(),
      ),
    ).toEqual([11, 22, 33, 44]);
    const x = tf.randomNormal([6, 8], 0, 1, "float32", 10) as tf.Tensor2D;
    const w = tf.randomNormal([8], 0, 1, "float32", 11) as tf.Tensor1D;
    const up = tf.randomNormal([6, 8], 0, 1, "float32", 12);
    for (const [ours, theirs] of [
      [addRow, tf.add],
      [mulRow, tf.mul],
    ] as const) {
      const got = tf.grads((a: tf.Tensor, b: tf.Tensor) =>
        tf.sum(tf.mul(ours(a as tf.Tensor2D, b as tf.Tensor1D), up)),
      )([x, w]);
      const want = tf.grads((a: tf.Tensor, b: tf.Tensor) => tf.sum(tf.mul(theirs(a, b), up)))([x, w]);
      expect(maxDiff(got[0] as tf.Tensor, want[0] as tf.Tensor)).toBe(0);
      expect(maxDiff(got[1] as tf.Tensor, want[1] as tf.Tensor)).toBeLessThan(1e-5);
    }
  });
});
