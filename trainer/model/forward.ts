import * as tf from "@tensorflow/tfjs-core";
import { headDim } from "./config.js";
import { addRow, batchMatmul, batchMatmulT } from "./kernels/batch-matmul.js";
import { matmul, matmulT } from "./matmul.js";
import { rmsNorm } from "./rms-norm.js";
import { applyRope, type RopePair, type RopeTables, ropePrefix } from "./rope.js";
import type { ModelConfig } from "./types.js";
import { gatherRows } from "./vocab-ops.js";
// Faster tfjs-wasm kernels with the same values (see the modules).
import "./kernels/wasm-elementwise.js";
import "./kernels/wasm-kernels.js";
import type { LayerWeights, Weights } from "./weights.js";

/** Large negative instead of −∞ so fully masked rows (padding) stay finite. */
export const MASKED = -1e9;

export { rmsNorm } from "./rms-norm.js";

/** A projection `a @ w (+ b)`. */
export interface Linear {
  w: tf.Tensor2D;
  b?: tf.Tensor1D;
}

/**
 * q, k, v projections of a layer, Qwen3's per-head q and k norms, and the rotary tables whose
 * rotate-half RoPE applies to q and k.
 */
export interface Projections {
  q: Linear;
  k: Linear;
  v: Linear;
  norm?: { q: tf.Tensor1D; k: tf.Tensor1D };
  rope: RopeTables;
}

const linear = (w: tf.Variable, b: tf.Variable | undefined): Linear =>
  b ? { w: w as tf.Tensor2D, b: b as tf.Tensor1D } : { w: w as tf.Tensor2D };

export function projections(l: LayerWeights, r: RopeTables): Projections {
  return {
    q: linear(l.q, l.bias?.q),
    k: linear(l.k, l.bias?.k),
    v: linear(l.v, l.bias?.v),
    ...(l.qkNorm ? { norm: { q: l.qkNorm.q as tf.Tensor1D, k: l.qkNorm.k as tf.Tensor1D } } : {}),
    rope: r,
  };
}

function apply(a: tf.Tensor2D, p: Linear): tf.Tensor2D {
  const x = matmul(a, p.w);
  return p.b ? addRow(x, p.b) : x;
}

/**
 * q, k, v for `[B, T, D]`-shaped activations `a` (given as `[B·T, D]`) with rotary tables
 * broadcastable to `[B, T, width]`. Returns q `[B, H, T, hd]`, k and v `[B, KV, T, hd]`.
 */
export function qkvHeads(
  a: tf.Tensor2D,
  p: Projections,
  c: ModelConfig,
  batch: number,
  rope: { q: RopePair; k: RopePair },
): { q: tf.Tensor4D; k: tf.Tensor4D; v: tf.Tensor4D } {
  const hd = headDim(c);
  const t = a.shape[0] / batch;
  const roped = (x: Linear, table: RopePair, heads: number, norm: tf.Tensor1D | undefined) => {
    const projected = apply(a, x);
    // Qwen3 normalises each head on its own: rows of hd columns.
    const normed = norm ? rmsNorm(tf.reshape(projected, [-1, hd]), norm, c.rmsNormEps) : projected;
    const y = tf.reshape(normed, [batch, t, heads * hd]);
    return tf.reshape(applyRope(y, table, p.rope), [batch, t, heads, hd]);
  };
  // [B, T, n, hd] → [B, n, T, hd]; with one token per row (decoding) that is a reshape, not a copy.
  const headsFirst = (x: tf.Tensor, heads: number) =>
    (t === 1 ? tf.reshape(x, [batch, heads, 1, hd]) : tf.transpose(x, [0, 2, 1, 3])) as tf.Tensor4D;
  const q = headsFirst(roped(p.q, rope.q, c.nHeads, p.norm?.q), c.nHeads);
  const k = headsFirst(roped(p.k, rope.k, c.nKvHeads, p.norm?.k), c.nKvHeads);
  const v = headsFirst(tf.reshape(apply(a, p.v), [batch, t, c.nKvHeads, hd]), c.nKvHeads);
  return { q, k, v };
}

/**
 * Grouped-query attention without repeating k/v: the G = H/KV query heads sharing a kv head are
 * stacked along the query axis. q `[B, H, Tq, hd]` (already scaled), k and v `[B, KV, Tk, hd]`, `mask`
 * additive and broadcastable to `[B, KV, G, Tq, Tk]`. Returns `[B·Tq, H·hd]`. The batched products are
 * {@link batchMatmulT} (scores = q·kᵀ) and {@link batchMatmul}: SIMD loops on tfjs-wasm.
 */
export function attention(q: tf.Tensor4D, k: tf.Tensor4D, v: tf.Tensor4D, mask: tf.Tensor, c: ModelConfig) {
  const [b, , tq, hd] = q.shape;
  const tk = k.shape[2];
  const g = c.nHeads / c.nKvHeads;
  const qg = tf.reshape(q, [b, c.nKvHeads, g * tq, hd]);
  const scores = tf.reshape(batchMatmulT(qg, k), [b, c.nKvHeads, g, tq, tk]);
  const p = tf.reshape(tf.softmax(tf.add(scores, mask)), [b, c.nKvHeads, g * tq, tk]);
  const o = tf.reshape(batchMatmul(p, v), [b, c.nHeads, tq, hd]);
  return tf.reshape(tf.transpose(o, [0, 2, 1, 3]), [b * tq, c.nHeads * hd]) as tf.Tensor2D;
}

/** SwiGLU MLP: down(silu(gate(a)) · up(a)). */
export function mlp(a: tf.Tensor2D, l: LayerWeights): tf.Tensor2D {
  const gate = matmul(a, l.gate);
  return matmul(tf.mul(tf.mul(gate, tf.sigmoid(gate)), matmul(a, l.up)), l.down);
}

/** `[T, T]` additive causal mask. */
export function causalMask(t: number): tf.Tensor2D {
  return tf.tidy(() => tf.mul(tf.sub(1, tf.linalg.bandPart(tf.ones([t, t]), -1, 0)), MASKED) as tf.Tensor2D);
}

/**
 * Token embedding as a row gather whose gradient scatter-adds into the rows used ({@link gatherRows}):
 * no `[B·T, V]` one-hot, and no UnsortedSegmentSum kernel (which tfjs-wasm lacks).
 */
export function embedTrainable(ids: tf.Tensor2D, embed: tf.Tensor2D): tf.Tensor2D {
  return gatherRows(embed, tf.reshape(ids, [-1]) as tf.Tensor1D);
}

/**
 * Full-sequence forward pass (training and scoring): `[B, T]` ids → final normed hidden `[B·T, D]`.
 * Right padding is harmless under the causal mask.
 */
export function forwardHidden(w: Weights, ids: tf.Tensor2D, c: ModelConfig, r: RopeTables): tf.Tensor2D {
  const [b, t] = ids.shape;
  if (t > c.contextLength)
    throw new RangeError(`sequence of ${t} tokens exceeds contextLength ${c.contextLength}`);
  const rope = ropePrefix(r, t);
  const mask = causalMask(t);
  let h = embedTrainable(ids, w.embed as tf.Tensor2D);
  for (const l of w.layers) {
    const a = rmsNorm(h, l.inputNorm as tf.Tensor1D, c.rmsNormEps) as tf.Tensor2D;
    const { q, k, v } = qkvHeads(a, projections(l, r), c, b, rope);
    h = tf.add(h, matmul(attention(q, k, v, mask, c), l.o));
    const m = rmsNorm(h, l.postNorm as tf.Tensor1D, c.rmsNormEps) as tf.Tensor2D;
    h = tf.add(h, mlp(m, l));
  }
  return rmsNorm(h, w.finalNorm as tf.Tensor1D, c.rmsNormEps) as tf.Tensor2D;
}

/** Final hidden `[N, D]` → logits `[N, V]`. */
export function lmHead(hidden: tf.Tensor2D, w: Weights): tf.Tensor2D {
  return w.lmHead ? matmul(hidden, w.lmHead) : matmulT(hidden, w.embed);
}
