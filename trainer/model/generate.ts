import * as tf from "@tensorflow/tfjs-core";
import { mixSeed, type Rng, rng } from "../../shared/random.js";
import { attention, MASKED, mlp, type Projections, projections, qkvHeads, rmsNorm } from "./forward.js";
import { product } from "./kernels/batch-matmul.js";
import { KvCache } from "./kv-cache.js";
import { matmul } from "./matmul.js";
import { PASS_ELEMENTS, passCost } from "./passes.js";
import { type RopeTables, ropeRows } from "./rope.js";
import { drawToken } from "./sampler.js";
import type { ModelConfig, SampleOptions, SampleResult } from "./types.js";
import type { Weights } from "./weights.js";

type Cache = {
  /** Keys `[B, KV, S, hd]` (see {@link decodeAttention}). */
  k: tf.Tensor4D[];
  v: tf.Tensor4D[];
};

/** `[rows, 1, 1, q, keys]` additive mask: a key is visible when it is not left padding and j ≤ i. */
function prefixMask(pads: number[], length: number): tf.Tensor {
  const data = new Float32Array(pads.length * length * length);
  pads.forEach((pad, row) => {
    for (let i = 0; i < length; i++) {
      for (let j = 0; j < length; j++) {
        if (j < pad || j > i) data[(row * length + i) * length + j] = MASKED;
      }
    }
  });
  return tf.tensor(data, [pads.length, 1, 1, length, length]);
}

/**
 * Left-pads the prompts to `length` and runs them through the model, returning the cache and last
 * logits.
 */
function prefill(
  w: Weights,
  c: ModelConfig,
  r: RopeTables,
  proj: Projections[],
  /** `[D, V]`: the untied head, or the tied embedding transposed once per call (not once per step). */
  head: tf.Tensor2D,
  prompts: readonly (readonly number[])[],
  length: number,
) {
  const pads = prompts.map((p) => length - p.length);
  const ids = new Int32Array(prompts.length * length);
  const positions = new Int32Array(prompts.length * length);
  prompts.forEach((p, row) => {
    ids.set(p, row * length + (pads[row] as number));
    for (let t = 0; t < length; t++) positions[row * length + t] = Math.max(0, t - (pads[row] as number));
  });
  const out = tf.tidy(() => {
    const n = prompts.length;
    const rope = ropeRows(r, positions, length);
    const mask = prefixMask(pads, length);
    let h = tf.gather(w.embed, tf.tensor1d(ids, "int32")) as tf.Tensor2D;
    const cache: Cache = { k: [], v: [] };
    w.layers.forEach((l, i) => {
      const a = rmsNorm(h, l.inputNorm as tf.Tensor1D, c.rmsNormEps) as tf.Tensor2D;
      const { q, k, v } = qkvHeads(a, proj[i] as Projections, c, n, rope);
      cache.k.push(k);
      cache.v.push(v);
      h = tf.add(h, matmul(attention(q, k, v, mask, c), l.o));
      h = tf.add(h, mlp(rmsNorm(h, l.postNorm as tf.Tensor1D, c.rmsNormEps) as tf.Tensor2D, l));
    });
    const last = tf.reshape(tf.slice(tf.reshape(h, [n, length, -1]), [0, length - 1, 0], [n, 1, -1]), [
      n,
      -1,
    ]);
    const logits = matmul(rmsNorm(last, w.finalNorm as tf.Tensor1D, c.rmsNormEps) as tf.Tensor2D, head);
    return { cache, logits };
  });
  return { ...out, pads };
}

/**
 * {@link prefill} in passes of at most `budget` elements, every row padded to the longest prompt so
 * that the passes' caches concatenate along the batch. Inside a pass every layer's `[n, H, T, T]`
 * scores live until the pass ends: 32 webshop prompts of 1.7k tokens at once overflowed wasm's heap.
 */
function prefillInPasses(
  w: Weights,
  c: ModelConfig,
  r: RopeTables,
  proj: Projections[],
  head: tf.Tensor2D,
  prompts: readonly (readonly number[])[],
  budget: number,
) {
  const length = Math.max(...prompts.map((p) => p.length));
  const perPass = Math.max(1, Math.floor(budget / passCost(c, 1, length)));
  if (prompts.length <= perPass) return prefill(w, c, r, proj, head, prompts, length);
  const parts: ReturnType<typeof prefill>[] = [];
  for (let from = 0; from < prompts.length; from += perPass)
    parts.push(prefill(w, c, r, proj, head, prompts.slice(from, from + perPass), length));
  const joined = tf.tidy(() => ({
    cache: {
      k: w.layers.map((_, i) => tf.concat(parts.map((p) => p.cache.k[i] as tf.Tensor4D)) as tf.Tensor4D),
      v: w.layers.map((_, i) => tf.concat(parts.map((p) => p.cache.v[i] as tf.Tensor4D)) as tf.Tensor4D),
    },
    logits: tf.concat(parts.map((p) => p.logits)) as tf.Tensor2D,
  }));
  for (const p of parts) {
    disposeCache(p.cache);
    p.logits.dispose();
  }
  return { ...joined, pads: parts.flatMap((p) => p.pads) };
}

/**
 * Attention for one new token per row: q `[B, H, 1, hd]` against the first `used` positions of the
 * cache k/v `[B, KV, S, hd]`, the G = H/KV query heads of a kv head as the rows of one product (q·kᵀ,
 * then p·v: batch-matmul.ts's SIMD loops on tfjs-wasm). `mask` is `[B, 1, 1, used]`. Returns `[B, H·hd]`.
 */
function decodeAttention(
  q: tf.Tensor4D,
  cache: { k: tf.Tensor4D; v: tf.Tensor4D; used: number },
  mask: tf.Tensor,
  c: ModelConfig,
) {
  const [b, , , hd] = q.shape;
  const g = c.nHeads / c.nKvHeads;
  const scores = product("nt", tf.reshape(q, [b, c.nKvHeads, g, hd]), cache.k, cache.used);
  const p = tf.softmax(tf.add(scores, mask));
  return tf.reshape(product("nn", p, cache.v, cache.used), [b, c.nHeads * hd]) as tf.Tensor2D;
}

/** One decode step for every row: appends to the cache and returns the next logits. */
function decodeStep(
  w: Weights,
  c: ModelConfig,
  r: RopeTables,
  proj: Projections[],
  head: tf.Tensor2D,
  cache: KvCache,
  tokens: number[],
  positions: number[],
  keyMask: Float32Array,
): tf.Tensor2D {
  return tf.tidy(() => {
    const n = tokens.length;
    const rope = ropeRows(r, positions);
    const keys = keyMask.length / n;
    const mask = tf.tensor(keyMask, [n, 1, 1, keys]);
    let h = tf.gather(w.embed, tf.tensor1d(tokens, "int32")) as tf.Tensor2D;
    w.layers.forEach((l, i) => {
      const a = rmsNorm(h, l.inputNorm as tf.Tensor1D, c.rmsNormEps) as tf.Tensor2D;
      const { q, k, v } = qkvHeads(a, proj[i] as Projections, c, n, rope);
      h = tf.add(h, matmul(decodeAttention(q, cache.append(i, k, v), mask, c), l.o));
      h = tf.add(h, mlp(rmsNorm(h, l.postNorm as tf.Tensor1D, c.rmsNormEps) as tf.Tensor2D, l));
    });
    cache.advance();
    return matmul(rmsNorm(h, w.finalNorm as tf.Tensor1D, c.rmsNormEps) as tf.Tensor2D, head);
  });
}

function disposeCache(cache: Cache): void {
  tf.dispose([...cache.k, ...cache.v]);
}

/** Keeps only the cache rows in `rows`. */
function selectRows(cache: Cache, rows: number[]): Cache {
  return tf.tidy(() => {
    const index = tf.tensor1d(rows, "int32");
    return { k: cache.k.map((t) => tf.gather(t, index)), v: cache.v.map((t) => tf.gather(t, index)) };
  });
}

/**
 * Batched generation with a KV cache. Identical prompts are prefilled once and their cache rows
 * copied; rows that finish are dropped from the batch once a quarter of it is done.
 */
export async function generate(
  w: Weights,
  c: ModelConfig,
  r: RopeTables,
  prompts: readonly (readonly number[])[],
  opts: SampleOptions,
): Promise<SampleResult> {
  const result: SampleResult = {
    tokens: prompts.map(() => []),
    logprobs: prompts.map(() => []),
    finished: prompts.map(() => false),
  };
  if (prompts.length === 0) return result;
  if (prompts.some((p) => p.length === 0)) throw new RangeError("every prompt needs at least one token");
  const longest = Math.max(...prompts.map((p) => p.length));
  const budget = Math.min(opts.maxNewTokens, c.contextLength - longest);
  if (budget < 0)
    throw new RangeError(`prompt of ${longest} tokens exceeds contextLength ${c.contextLength}`);
  // One stream per row: a row's tokens do not depend on which rows share its batch (or its thread).
  const randoms = prompts.map((_, i) => rng(opts.rowSeeds?.[i] ?? mixSeed(opts.seed, i)));
  const stops = new Set(opts.stopIds);
  const unique = new Map<string, number>();
  const uniquePrompts: (readonly number[])[] = [];
  const rowOf = prompts.map((p) => {
    const key = p.join(",");
    let at = unique.get(key);
    if (at === undefined) {
      at = uniquePrompts.push(p) - 1;
      unique.set(key, at);
    }
    return at;
  });
  const proj = w.layers.map((l) => projections(l, r));
  const head = (w.lmHead ?? tf.transpose(w.embed)) as tf.Tensor2D;
  const pre = prefillInPasses(w, c, r, proj, head, uniquePrompts, opts.prefillElements ?? PASS_ELEMENTS);
  // Copy the rows of repeated prompts (a GRPO group); with every prompt distinct there is nothing to
  // copy, and a gather of the whole cache is not cheap on tfjs-wasm.
  const distinct = uniquePrompts.length === prompts.length;
  const copied = distinct ? pre.cache : selectRows(pre.cache, rowOf);
  let logits = distinct ? pre.logits : tf.tidy(() => tf.gather(pre.logits, rowOf));
  if (!distinct) {
    disposeCache(pre.cache);
    pre.logits.dispose();
  }
  const cache = KvCache.from(copied.k, copied.v, longest + budget);
  let live = prompts.map((_, i) => i);
  let pads = rowOf.map((u) => pre.pads[u] as number);
  const width = longest;
  try {
    for (let step = 0; step < budget && live.length > 0; step++) {
      const values = (await logits.data()) as Float32Array;
      logits.dispose();
      const next = live.map((row, at) => {
        // A finished row stays in the batch until a quarter of it is done; it feeds its stop id again
        // and nothing it would sample is kept, since its turn is over.
        if (result.finished[row]) return (result.tokens[row] as number[]).at(-1) as number;
        const random = randoms[row] as Rng;
        const d = drawToken(values, at * c.vocabSize, c.vocabSize, opts.temperature, opts.topP, random);
        (result.tokens[row] as number[]).push(d.token);
        (result.logprobs[row] as number[]).push(d.logprob);
        if (opts.onToken?.(row, d.token) === true || stops.has(d.token)) result.finished[row] = true;
        return d.token;
      });
      const keep = live.flatMap((row, at) => (result.finished[row] ? [] : [at]));
      if (keep.length === 0 || step === budget - 1) return result;
      let tokens = next;
      if (keep.length < live.length * 0.75) {
        cache.select(keep);
        live = keep.map((at) => live[at] as number);
        pads = keep.map((at) => pads[at] as number);
        tokens = keep.map((at) => next[at] as number);
      }
      const keys = width + step + 1;
      const keyMask = new Float32Array(live.length * keys);
      pads.forEach((pad, at) => {
        keyMask.fill(MASKED, at * keys, at * keys + pad);
      });
      const positions = pads.map((pad) => width - pad + step);
      logits = decodeStep(w, c, r, proj, head, cache, tokens, positions, keyMask);
    }
    return result;
  } finally {
    cache.dispose();
    logits.dispose();
    if (head !== w.lmHead) head.dispose();
  }
}
