import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../backend/backend.js";
import { createModel } from "./create-model.js";
import { matmulT } from "./matmul.js";
import { chunkRows, gatherRows, targetScores } from "./vocab-ops.js";

const close = (a: tf.Tensor, b: tf.Tensor, tol = 1e-5) => {
  const x = a.dataSync();
  const y = b.dataSync();
  expect(x.length).toBe(y.length);
  let worst = 0;
  for (let i = 0; i < x.length; i++) worst = Math.max(worst, Math.abs((x[i] as number) - (y[i] as number)));
  expect(worst).toBeLessThan(tol);
};

/** The one-hot formulation the trainer used before: the reference for values and gradients. */
function oneHotScores(h: tf.Tensor2D, w: tf.Tensor2D, tied: boolean, targets: number[]) {
  const logits = tied ? tf.matMul(h, w, false, true) : tf.matMul(h, w);
  const logp = tf.logSoftmax(logits);
  const picked = tf.cast(tf.oneHot(tf.tensor1d(targets, "int32"), logits.shape[1] as number), "float32");
  return {
    logprobs: tf.sum(tf.mul(logp, picked), -1),
    entropy: tf.neg(tf.sum(tf.mul(tf.exp(logp), logp), -1)),
  };
}

for (const backend of ["cpu", "wasm"] as const) {
  describe(`vocabulary ops on ${backend}`, () => {
    beforeAll(async () => {
      const b = await initBackend(backend);
      if (!b.ok) throw new Error(b.error);
    });

    it("gatherRows equals a one-hot product, gradient included, with repeated ids", () => {
      const table = tf.randomNormal([11, 5], 0, 1, "float32", 3) as tf.Tensor2D;
      const ids = [3, 0, 3, 10, 3, 7, 0];
      const upstream = tf.randomNormal([ids.length, 5], 0, 1, "float32", 4);
      const mine = tf.grad((t: tf.Tensor) =>
        tf.sum(tf.mul(gatherRows(t as tf.Tensor2D, tf.tensor1d(ids, "int32")), upstream)),
      )(table);
      const ref = tf.grad((t: tf.Tensor) =>
        tf.sum(tf.mul(tf.matMul(tf.cast(tf.oneHot(tf.tensor1d(ids, "int32"), 11), "float32"), t), upstream)),
      )(table);
      close(gatherRows(table, tf.tensor1d(ids, "int32")), tf.gather(table, ids));
      close(mine, ref);
      // Row 3 is used three times: its gradient is the sum of three upstream rows.
      const up = upstream.arraySync() as number[][];
      const row3 = (mine.arraySync() as number[][])[3] as number[];
      row3.forEach((g, j) => {
        expect(g).toBeCloseTo((up[0]?.[j] ?? 0) + (up[2]?.[j] ?? 0) + (up[4]?.[j] ?? 0), 5);
      });
    });

    for (const tied of [true, false]) {
      it(`targetScores equals log-softmax + one-hot in chunks (tied ${tied}), values and gradients`, () => {
        const n = 7;
        const v = 13;
        const h = tf.randomNormal([n, 6], 0, 1, "float32", 5) as tf.Tensor2D;
        const w = tf.randomNormal(tied ? [v, 6] : [6, v], 0, 1, "float32", 6) as tf.Tensor2D;
        const targets = [4, 4, 12, 0, 4, 9, 1];
        const gl = tf.randomNormal([n], 0, 1, "float32", 7);
        const ge = tf.randomNormal([n], 0, 1, "float32", 8);
        const loss = (s: { logprobs: tf.Tensor; entropy?: tf.Tensor }) =>
          tf.add(tf.sum(tf.mul(s.logprobs, gl)), tf.sum(tf.mul(s.entropy as tf.Tensor, ge)));
        // Chunks of 3 rows: 3 + 3 + 1, so the chunk edges are crossed.
        const mine = tf.grads((a: tf.Tensor, b: tf.Tensor) =>
          loss(
            targetScores(a as tf.Tensor2D, { weight: b as tf.Tensor2D, tied }, Int32Array.from(targets), {
              entropy: true,
              rowsPerChunk: 3,
            }),
          ),
        )([h, w]);
        const ref = tf.grads((a: tf.Tensor, b: tf.Tensor) =>
          loss(oneHotScores(a as tf.Tensor2D, b as tf.Tensor2D, tied, targets)),
        )([h, w]);
        const got = targetScores(h, { weight: w, tied }, Int32Array.from(targets), {
          entropy: true,
          rowsPerChunk: 3,
        });
        const want = oneHotScores(h, w, tied, targets);
        close(got.logprobs, want.logprobs);
        close(got.entropy as tf.Tensor, want.entropy);
        close(mine[0] as tf.Tensor, ref[0] as tf.Tensor);
        close(mine[1] as tf.Tensor, ref[1] as tf.Tensor);
      });
    }

    // [9, 6]·[6, 17] takes tf.matMul; [12, 8]·[8, 16] takes batch-matmul.ts's SIMD loops on wasm.
    it.each([
      [9, 17, 6],
      [12, 16, 8],
    ])(
      "in one block it is the one-hot formulation bit for bit: values and both gradients (%i rows, vocab %i, width %i)",
      (rows, vocab, width) => {
        const h = tf.randomNormal([rows, width], 0, 1, "float32", 11) as tf.Tensor2D;
        const e = tf.randomNormal([vocab, width], 0, 1, "float32", 12) as tf.Tensor2D;
        const targets = [3, 3, 16, 0, 5, 9, 1, 3, 7, 2, 15, 8].slice(0, rows).map((t) => t % vocab);
        const up = tf.randomNormal([rows], 0, 1, "float32", 13);
        const ours = (a: tf.Tensor, b: tf.Tensor) =>
          targetScores(a as tf.Tensor2D, { weight: b as tf.Tensor2D, tied: true }, Int32Array.from(targets))
            .logprobs;
        // The old path: logits through matmul.ts's transpose, log-softmax, one-hot pick.
        const old = (a: tf.Tensor, b: tf.Tensor) =>
          tf.sum(
            tf.mul(
              tf.logSoftmax(matmulT(a as tf.Tensor2D, b)),
              tf.cast(tf.oneHot(tf.tensor1d(targets, "int32"), vocab), "float32"),
            ),
            -1,
          );
        expect(Array.from(ours(h, e).dataSync())).toEqual(Array.from(old(h, e).dataSync()));
        const g1 = tf.grads((a: tf.Tensor, b: tf.Tensor) => tf.sum(tf.mul(ours(a, b), up)))([h, e]);
        const g2 = tf.grads((a: tf.Tensor, b: tf.Tensor) => tf.sum(tf.mul(old(a, b), up)))([h, e]);
        expect(Array.from((g1[0] as tf.Tensor).dataSync())).toEqual(
          Array.from((g2[0] as tf.Tensor).dataSync()),
        );
        expect(Array.from((g1[1] as tf.Tensor).dataSync())).toEqual(
          Array.from((g2[1] as tf.Tensor).dataSync()),
        );
      },
    );

    it("a training step allocates no one-hot and no [B·T, V] block beyond a chunk", async () => {
      const made = createModel(
        { vocabSize: 512, dModel: 16, nLayers: 1, nHeads: 2, nKvHeads: 2, dFf: 32, contextLength: 32 },
        { seed: 1 },
      );
      if (!made.ok) throw new Error(made.error);
      const model = made.value;
      const ids = tf.tensor2d([Array.from({ length: 32 }, (_, i) => (i * 37) % 512)], undefined, "int32");
      const info = await tf.profile(
        () => tf.variableGrads(() => tf.sum(model.evaluate(ids, ids, { entropy: true }).logprobs)).value,
      );
      expect(info.kernelNames).not.toContain("OneHot");
      // With the default chunk (2²² elements) all 32 rows fit one block: 32·512 is the largest allowed.
      expect(chunkRows(512)).toBe(8192);
      const largest = Math.max(
        ...info.kernels.flatMap((k) => k.outputShapes.map((s) => s.reduce((a, b) => a * b, 1))),
      );
      expect(largest).toBeLessThanOrEqual(32 * 512);
      model.dispose();
    });
  });
}
