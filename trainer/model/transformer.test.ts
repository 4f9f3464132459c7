import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../backend/backend.js";
import { resolveModelConfig } from "./config.js";
import { createModel } from "./create-model.js";
import { applyRope, type RopeTables, ropeTables, rotateColumns, rotateHalf } from "./rope.js";
import type { PolicyModel } from "./types.js";

const TINY = { vocabSize: 40, dModel: 32, nLayers: 2, nHeads: 4, nKvHeads: 2, dFf: 48, contextLength: 32 };

const TINY_CONFIG = (() => {
  const made = resolveModelConfig(TINY);
  if (!made.ok) throw new Error(made.error);
  return made.value;
})();

function tiny(seed: number, extra: object = {}): PolicyModel {
  const made = createModel({ ...TINY, ...extra }, { seed });
  if (!made.ok) throw new Error(made.error);
  return made.value;
}

/** Full-sequence logprobs of `seq[1..]`, the reference the KV-cache path must match. */
function scoreSequence(model: PolicyModel, seq: number[]): number[] {
  return tf.tidy(() => {
    const ids = tf.tensor2d([seq.slice(0, -1)], undefined, "int32");
    const targets = tf.tensor2d([seq.slice(1)], undefined, "int32");
    return Array.from(model.logprobsOf(ids, targets).dataSync());
  });
}

beforeAll(async () => {
  const backend = await initBackend("wasm");
  if (!backend.ok) throw new Error(backend.error);
});

describe("rotary embedding", () => {
  it("puts cos/sin of p·θ^(−2i/hd) in both halves and folds the q scale in", () => {
    const r = ropeTables(TINY_CONFIG);
    const hd = 8;
    const cosK = r.k.cos.arraySync() as number[][];
    const sinK = r.k.sin.arraySync() as number[][];
    // Position 3, second k head (unscaled), column i = 1 and its twin 1 + hd/2:
    // angle = 3 · 10000^(−2·1/8) = 3 · 0.1 = 0.3.
    const kCol = hd + 1;
    expect(cosK[3]?.[kCol]).toBeCloseTo(Math.cos(0.3), 5);
    expect(cosK[3]?.[kCol + hd / 2]).toBeCloseTo(Math.cos(0.3), 5);
    expect(sinK[3]?.[kCol]).toBeCloseTo(Math.sin(0.3), 5);
    // The q tables carry the attention scale 1/√hd = 1/√8.
    expect((r.q.cos.arraySync() as number[][])[3]?.[1]).toBeCloseTo(Math.cos(0.3) / Math.sqrt(8), 5);
  });

  it("rotates each head's columns to rotate_half: [x1, x2] → [−x2, x1]", () => {
    const r = ropeTables(TINY_CONFIG);
    const row = Array.from({ length: 16 }, (_, i) => i + 1);
    const out = rotateColumns(tf.tensor2d([row]), r.rotate).arraySync()[0];
    // Head 0 is 1..8 → [−5, −6, −7, −8, 1, 2, 3, 4]; head 1 is 9..16 likewise.
    expect(out).toEqual([-5, -6, -7, -8, 1, 2, 3, 4, -13, -14, -15, -16, 9, 10, 11, 12]);
  });
});

describe("fused rotary embedding (tfjs-wasm)", () => {
  let r: RopeTables;
  beforeAll(() => {
    r = ropeTables(TINY_CONFIG);
  });
  /** The unfused ops the kernel replaces: y·cos + rotate_half(y)·sin. */
  const unfused = (y: tf.Tensor, t: { cos: tf.Tensor; sin: tf.Tensor }) =>
    tf.add(tf.mul(y, t.cos), tf.mul(rotateHalf(y, r), t.sin));

  it("rotates one head by hand, forward and for the gradient", async () => {
    // hd = 8: x = [x₁ | x₂] = [1 2 3 4 | 5 6 7 8], cos = [1 … | 2 …], sin = [10 … | 100 …].
    const x = tf.tensor2d([[1, 2, 3, 4, 5, 6, 7, 8]]);
    const table = {
      cos: tf.tensor2d([[1, 1, 1, 1, 2, 2, 2, 2]]),
      sin: tf.tensor2d([[10, 10, 10, 10, 100, 100, 100, 100]]),
    };
    // Forward [x₁·c₁ − x₂·s₁, x₂·c₂ + x₁·s₂]: 1 − 5·10 = −49, …; 5·2 + 1·100 = 110, 6·2 + 2·100 = 212, ….
    expect(Array.from(applyRope(x, table, r).dataSync())).toEqual([-49, -58, -67, -76, 110, 212, 314, 416]);
    // The gradient of Σ rope(x)·dy, dy = [1 … 8] too, is [y₁·c₁ + y₂·s₂, y₂·c₂ − y₁·s₁]:
    // 1 + 5·100 = 501, …; 5·2 − 1·10 = 0, 6·2 − 2·10 = −8, ….
    const dy = tf.tensor2d([[1, 2, 3, 4, 5, 6, 7, 8]]);
    const grad = tf.grad((v: tf.Tensor) => tf.sum(tf.mul(applyRope(v, table, r), dy)))(x);
    expect(Array.from(grad.dataSync())).toEqual([501, 602, 703, 804, 0, -8, -16, -24]);
    const info = await tf.profile(() => applyRope(x, table, r));
    expect(info.kernels.map((k) => k.name)).toEqual(["EdgegymRope"]);
  });

  it("equals the unfused ops bit for bit, a [T, width] table serving a batch, and their gradient", () => {
    // [B = 2, T = 5, 3 heads · 8]: the training shape; each sequence takes the table's 5 rows.
    const y = tf.randomNormal([2, 5, 24], 0, 1, "float32", 21);
    const table = {
      cos: tf.randomNormal([5, 24], 0, 1, "float32", 22),
      sin: tf.randomNormal([5, 24], 0, 1, "float32", 23),
    };
    expect(Array.from(applyRope(y, table, r).dataSync())).toEqual(Array.from(unfused(y, table).dataSync()));
    const up = tf.randomNormal([2, 5, 24], 0, 1, "float32", 24);
    const loss = (f: (v: tf.Tensor) => tf.Tensor) => (v: tf.Tensor) => tf.sum(tf.mul(f(v), up));
    const got = tf.grad(loss((v) => applyRope(v, table, r)))(y);
    const want = tf.grad(loss((v) => unfused(v, table)))(y);
    expect(Array.from(got.dataSync())).toEqual(Array.from(want.dataSync()));
  });
});

describe("transformer", () => {
  it("samples through the KV cache with the same logprobs as a full forward pass", async () => {
    const model = tiny(1);
    const prompts = [
      [1, 2, 3, 4, 5],
      [7, 8],
      [1, 2, 3, 4, 5],
    ];
    const out = await model.sample(prompts, {
      maxNewTokens: 6,
      temperature: 1,
      topP: 1,
      stopIds: [],
      seed: 3,
    });
    prompts.forEach((prompt, i) => {
      const tokens = out.tokens[i] as number[];
      expect(tokens).toHaveLength(6);
      const full = scoreSequence(model, [...prompt, ...tokens]).slice(prompt.length - 1);
      full.forEach((lp, t) => {
        expect(out.logprobs[i]?.[t]).toBeCloseTo(lp, 4);
      });
    });
    expect(out.finished).toEqual([false, false, false]);
    model.dispose();
  });

  it("is deterministic for a seed and stops at a stop id", async () => {
    const model = tiny(2);
    const opts = { maxNewTokens: 8, temperature: 1, topP: 0.9, stopIds: [], seed: 11 };
    const a = await model.sample([[1, 2, 3]], opts);
    const b = await model.sample([[1, 2, 3]], opts);
    expect(b.tokens).toEqual(a.tokens);
    const stop = a.tokens[0]?.[2] as number;
    const stopped = await model.sample([[1, 2, 3]], { ...opts, stopIds: [stop] });
    const cut = (a.tokens[0] as number[]).indexOf(stop) + 1;
    expect(stopped.tokens[0]).toEqual(a.tokens[0]?.slice(0, cut));
    expect(stopped.finished).toEqual([true]);
    model.dispose();
  });

  it("ends every row at its own first stop id, while the rest of the batch generates on", async () => {
    const model = tiny(4);
    // With 3 of 40 ids stopping, rows finish one by one over the 24 steps, mostly while fewer than a
    // quarter of the 32 rows are done, so finished rows stay in the batch beside live ones.
    const stopIds = [5, 6, 7];
    const prompts = Array.from({ length: 32 }, (_, i) => [1, 2 + (i % 30)]);
    const out = await model.sample(prompts, { maxNewTokens: 24, temperature: 1, topP: 1, stopIds, seed: 5 });
    const ended = out.tokens.filter((t) => stopIds.includes(t.at(-1) as number)).length;
    expect(ended).toBeGreaterThan(4);
    expect(ended).toBeLessThan(32);
    out.tokens.forEach((tokens, row) => {
      const firstStop = tokens.findIndex((t) => stopIds.includes(t));
      expect(firstStop === -1 ? tokens.length : firstStop + 1).toBe(tokens.length);
      expect(out.finished[row]).toBe(firstStop !== -1);
      expect(out.logprobs[row]).toHaveLength(tokens.length);
    });
    model.dispose();
  });

  it("prefills a batch in passes with the same tokens and logprobs as in one, and less memory", async () => {
    const model = tiny(6);
    // Prompts of different lengths (left-padded to the longest), two of them the same (copied rows).
    const prompts = [
      [1, 2, 3, 4, 5, 6, 7, 8],
      [9, 10],
      [3, 4, 5, 6, 7],
      [9, 10],
      [11, 12, 13],
    ];
    const opts = { maxNewTokens: 10, temperature: 1, topP: 1, stopIds: [], seed: 9 };
    const one = await model.sample(prompts, opts);
    // A budget of 1 element: every distinct prompt gets a pass of its own (4 passes).
    const split = await model.sample(prompts, { ...opts, prefillElements: 1 });
    expect(split.tokens).toEqual(one.tokens);
    split.logprobs.forEach((row, i) => {
      row.forEach((lp, t) => {
        expect(lp).toBeCloseTo(one.logprobs[i]?.[t] as number, 5);
      });
    });
    // Peak memory of 16 long prompts prefilled 2 at a time stays near that of 2 prompts.
    const long = (n: number) =>
      Array.from({ length: n }, (_, i) => Array.from({ length: 28 }, (_, t) => 1 + ((i + t) % 39)));
    const peak = async (n: number) => {
      const base = tf.memory().numBytes;
      const info = await tf.profile(async () => {
        // passCost(1 row, 28 wide) = 28·(2·4·28 + 2·40) = 8 512 elements; a budget of 2 rows.
        await model.sample(long(n), { ...opts, maxNewTokens: 1, prefillElements: 2 * 8_512 });
      });
      return info.peakBytes - base;
    };
    const two = await peak(2);
    const sixteen = await peak(16);
    expect(sixteen).toBeLessThan(3 * two);
    model.dispose();
  });

  it("gives [B, T] values and entropy when it has a value head", () => {
    const model = tiny(3, { valueHead: true, tieEmbeddings: false, arch: "llama" });
    const ids = tf.tensor2d([[1, 2, 3]], undefined, "int32");
    const ev = model.evaluate(ids, ids, { entropy: true, values: true });
    expect(ev.values?.shape).toEqual([1, 3]);
    // Entropy of a distribution over 40 tokens lies in (0, ln 40].
    for (const h of ev.entropy?.dataSync() ?? []) expect(h).toBeLessThanOrEqual(Math.log(40) + 1e-4);
    expect(model.logits(ids).shape).toEqual([1, 3, 40]);
    model.dispose();
  });

  it("stops at the context length and rejects prompts that do not fit", async () => {
    const model = tiny(4);
    const opts = { maxNewTokens: 10, temperature: 1, topP: 1, stopIds: [], seed: 1 };
    // contextLength 32: the 28-token prompt leaves room for 4 new tokens (for every row), not 10.
    const out = await model.sample([Array(28).fill(1), [2]], opts);
    expect(out.tokens.map((t) => t.length)).toEqual([4, 4]);
    expect(out.finished).toEqual([false, false]);
    await expect(model.sample([Array(33).fill(1)], opts)).rejects.toThrow(RangeError);
    await expect(model.sample([[]], opts)).rejects.toThrow(RangeError);
    expect(await model.sample([], opts)).toEqual({ tokens: [], logprobs: [], finished: [] });
    model.dispose();
  });

  it("rejects a config whose heads do not divide", () => {
    const made = createModel({ ...TINY, nKvHeads: 3 }, { seed: 1 });
    expect(made.ok).toBe(false);
  });
});
