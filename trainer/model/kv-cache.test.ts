import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../backend/backend.js";
import { product } from "./kernels/batch-matmul.js";
import { KvCache } from "./kv-cache.js";

beforeAll(async () => {
  const backend = await initBackend("wasm");
  if (!backend.ok) throw new Error(backend.error);
});

const part = (seed: number, s: number) => tf.randomNormal([3, 2, s, 4], 0, 1, "float32", seed) as tf.Tensor4D;
const firstRows = (t: tf.Tensor4D, n: number) => tf.slice(t, [0, 0, 0, 0], [-1, -1, n, -1]);

describe("KV cache", () => {
  it("holds in place on wasm what concat would hold, and products read only the filled positions", () => {
    const k0 = part(1, 5);
    const v0 = part(2, 5);
    const want = { k: tf.clone(k0), v: tf.clone(v0) };
    // Room for 5 prompt positions and 3 new ones.
    const cache = KvCache.from([k0], [v0], 8);
    for (const seed of [3, 4]) {
      const k = part(seed, 1);
      const v = part(seed + 10, 1);
      const got = cache.append(0, k, v);
      cache.advance();
      want.k = tf.concat([want.k, k], 2);
      want.v = tf.concat([want.v, v], 2);
      expect(got.used).toBe(want.k.shape[2]);
      // The buffer holds all 7 positions; the first `used` equal the concatenated cache.
      expect(got.k.shape[2]).toBe(8);
      expect(Array.from(firstRows(got.k, got.used).dataSync())).toEqual(Array.from(want.k.dataSync()));
      expect(Array.from(firstRows(got.v, got.used).dataSync())).toEqual(Array.from(want.v.dataSync()));
      // q·kᵀ over the filled positions only, as against the concatenated keys.
      const q = part(9, 1);
      const scores = product("nt", q, got.k, got.used);
      const ref = tf.matMul(q, tf.transpose(want.k, [0, 1, 3, 2]));
      expect(tf.max(tf.abs(tf.sub(scores, ref))).dataSync()[0]).toBeLessThan(1e-5);
    }
    // Dropping batch row 1 keeps rows 0 and 2, and the next step writes after their 7 positions.
    cache.select([0, 2]);
    const step = part(5, 1).slice([0, 0, 0, 0], [2, -1, -1, -1]) as tf.Tensor4D;
    const kept = cache.append(0, step, step);
    expect(kept.used).toBe(8);
    const wantK = tf.concat([tf.gather(want.k, [0, 2]), step], 2);
    expect(Array.from(kept.k.dataSync())).toEqual(Array.from(wantK.dataSync()));
    cache.dispose();
  });

  it("grows by concat on the cpu backend", async () => {
    await tf.setBackend("cpu");
    const cache = KvCache.from([part(1, 2)], [part(2, 2)], 4);
    const got = cache.append(0, part(3, 1), part(4, 1));
    expect(got.k.shape[2]).toBe(3);
    expect(got.used).toBe(3);
    cache.dispose();
    await tf.setBackend("wasm");
  });
});
