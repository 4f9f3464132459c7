import * as tf from "@tensorflow/tfjs-core";
import type { ModelConfig } from "../policy/types.js";
import { headDim } from "./config.js";
import { matmul, matmulT } from "./matmul.js";
import { type RopeTables, rotateColumns } from "./rope.js";
import type { LayerWeights, Weights } from "./weights.js";

/** Large negative instead of −∞ so fully masked rows (padding) stay finite. */
export const MASKED = -1e9;

/** RMSNorm: x / √(mean(x²) + ε) · w over the last axis. */
export function rmsNorm(x: tf.Tensor, w: tf.Tensor1D, eps: number): tf.Tensor {
  return tf.mul(tf.mul(x, tf.rsqrt(tf.add(tf.mean(tf.square(x), -1, true), eps))), w);
}

/**
 * The projection matrix and bias of one layer with the rotated q|k columns appended:
 * `[D, (H + 2·KV)·hd + (H + KV)·hd]` = [q | k | v | q@R | k@R].
 */
export function projection(
  l: LayerWeights,
  c: ModelConfig,
  r: RopeTables,
): { w: tf.Tensor2D; b?: tf.Tensor1D } {
  const qk = (c.nHeads + c.nKvHeads) * headDim(c);
  const w = tf.concat(
    [l.qkv, rotateColumns(tf.slice(l.qkv as tf.Tensor2D, [0, 0], [c.dModel, qk]), r.rotate)],
    1,
  ) as tf.Tensor2D;
  if (!l.qkvBias) return { w };
  const bias = l.qkvBias as tf.Tensor1D;
  const rotated = rotateColumns(tf.reshape(tf.slice(bias, [0], [qk]), [1, qk]), r.rotate);
  return { w, b: tf.concat([bias, tf.reshape(rotated, [qk])]) };
}

/**
 * q, k, v for `[B, T, D]`-shaped activations `a` (given as `[B·T, D]`) at rotary rows `cos`/`sin`
 * (broadcastable to `[B, T, (H + KV)·hd]`). Returns q `[B, H, T, hd]`, kT `[B, KV, hd, T]`, v `[B, KV, T, hd]`.
 */
export function qkvHeads(
  a: tf.Tensor2D,
  proj: { w: tf.Tensor2D; b?: tf.Tensor1D },
  c: ModelConfig,
  batch: number,
  cos: tf.Tensor,
  sin: tf.Tensor,
): { q: tf.Tensor4D; kT: tf.Tensor4D; v: tf.Tensor4D } {
  const hd = headDim(c);
  const qkWidth = (c.nHeads + c.nKvHeads) * hd;
  const vWidth = c.nKvHeads * hd;
  let x: tf.Tensor = matmul(a, proj.w);
  if (proj.b) x = tf.add(x, proj.b);
  const t = a.shape[0] / batch;
  x = tf.reshape(x, [batch, t, 2 * qkWidth + vWidth]);
  const [qk, v, qkRot] = tf.split(x, [qkWidth, vWidth, qkWidth], 2) as [
    tf.Tensor3D,
    tf.Tensor3D,
    tf.Tensor3D,
  ];
  const roped = tf.add(tf.mul(qk, cos), tf.mul(qkRot, sin));
  const [qPart, kPart] = tf.split(roped, [c.nHeads * hd, c.nKvHeads * hd], 2);
  const q = tf.transpose(
    tf.reshape(qPart as tf.Tensor, [batch, t, c.nHeads, hd]),
    [0, 2, 1, 3],
  ) as tf.Tensor4D;
  // Keys are kept transposed, [B, KV, hd, T], so scores need no transpose (nor the cache one per step).
  const kT = tf.transpose(
    tf.reshape(kPart as tf.Tensor, [batch, t, c.nKvHeads, hd]),
    [0, 2, 3, 1],
  ) as tf.Tensor4D;
  const vh = tf.transpose(tf.reshape(v, [batch, t, c.nKvHeads, hd]), [0, 2, 1, 3]) as tf.Tensor4D;
  return { q, kT, v: vh };
}

/**
 * Grouped-query attention without repeating k/v: the G = H/KV query heads sharing a kv head are
 * stacked along the query axis. q `[B, H, Tq, hd]` (already scaled), kT `[B, KV, hd, Tk]`, v `[B, KV, Tk, hd]`, `mask`
 * additive and broadcastable to `[B, KV, G, Tq, Tk]`. Returns `[B·Tq, H·hd]`.
 */
export function attention(q: tf.Tensor4D, kT: tf.Tensor4D, v: tf.Tensor4D, mask: tf.Tensor, c: ModelConfig) {
  const [b, , tq, hd] = q.shape;
  const tk = kT.shape[3];
  const g = c.nHeads / c.nKvHeads;
  const qg = tf.reshape(q, [b, c.nKvHeads, g * tq, hd]);
  const scores = tf.reshape(matmul(qg, kT), [b, c.nKvHeads, g, tq, tk]);
  const p = tf.reshape(tf.softmax(tf.add(scores, mask)), [b, c.nKvHeads, g * tq, tk]);
  const o = tf.reshape(matmul(p, v), [b, c.nHeads, tq, hd]);
  return tf.reshape(tf.transpose(o, [0, 2, 1, 3]), [b * tq, c.nHeads * hd]) as tf.Tensor2D;
}

/** SwiGLU MLP: down(silu(gate(a)) · up(a)). */
export function mlp(a: tf.Tensor2D, l: LayerWeights): tf.Tensor2D {
  const [gate, up] = tf.split(matmul(a, l.gateUp), 2, 1);
  return matmul(tf.mul(tf.mul(gate as tf.Tensor, tf.sigmoid(gate as tf.Tensor)), up as tf.Tensor), l.down);
}

/** `[T, T]` additive causal mask. */
export function causalMask(t: number): tf.Tensor2D {
  return tf.tidy(() => tf.mul(tf.sub(1, tf.linalg.bandPart(tf.ones([t, t]), -1, 0)), MASKED) as tf.Tensor2D);
}

/**
 * Token embedding as one-hot @ table (one-hot made as int32 and cast: the wasm OneHot kernel writes
 * int bits into float32 outputs): a matmul has a gradient on every backend, while gather's needs
 * UnsortedSegmentSum, which the wasm backend lacks.
 */
export function embedTrainable(ids: tf.Tensor2D, embed: tf.Tensor2D): tf.Tensor2D {
  const flat = tf.reshape(ids, [-1]) as tf.Tensor1D;
  return matmul(tf.cast(tf.oneHot(flat, embed.shape[0]), "float32") as tf.Tensor2D, embed);
}

/**
 * Full-sequence forward pass (training and scoring): `[B, T]` ids → final normed hidden `[B·T, D]`.
 * Right padding is harmless under the causal mask.
 */
export function forwardHidden(w: Weights, ids: tf.Tensor2D, c: ModelConfig, r: RopeTables): tf.Tensor2D {
  const [b, t] = ids.shape;
  if (t > c.contextLength)
    throw new RangeError(`sequence of ${t} tokens exceeds contextLength ${c.contextLength}`);
  const cos = tf.slice(r.cos, [0, 0], [t, -1]);
  const sin = tf.slice(r.sin, [0, 0], [t, -1]);
  const mask = causalMask(t);
  let h = embedTrainable(ids, w.embed as tf.Tensor2D);
  for (const l of w.layers) {
    const a = rmsNorm(h, l.inputNorm as tf.Tensor1D, c.rmsNormEps) as tf.Tensor2D;
    const { q, kT, v } = qkvHeads(a, projection(l, c, r), c, b, cos, sin);
    h = tf.add(h, matmul(attention(q, kT, v, mask, c), l.o));
    const m = rmsNorm(h, l.postNorm as tf.Tensor1D, c.rmsNormEps) as tf.Tensor2D;
    h = tf.add(h, mlp(m, l));
  }
  return rmsNorm(h, w.finalNorm as tf.Tensor1D, c.rmsNormEps) as tf.Tensor2D;
}

/** Final hidden `[N, D]` → logits `[N, V]`. */
export function lmHead(hidden: tf.Tensor2D, w: Weights): tf.Tensor2D {
  return w.lmHead ? matmul(hidden, w.lmHead) : matmulT(hidden, w.embed);
}
