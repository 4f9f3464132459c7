import * as tf from "@tensorflow/tfjs-core";
import { headDim } from "./config.js";
import type { ModelConfig } from "./types.js";

/**
 * One decoder layer's weights, stored `[in, out]` for `x @ W`. Each projection is its own matmul:
 * slicing a fused output along its last axis is a per-element loop on the tfjs cpu backend.
 */
export interface LayerWeights {
  inputNorm: tf.Variable;
  /** `[D, H·hd]`, `[D, KV·hd]`, `[D, KV·hd]`. */
  q: tf.Variable;
  k: tf.Variable;
  v: tf.Variable;
  /** q/k/v biases, qwen2 only. */
  bias?: { q: tf.Variable; k: tf.Variable; v: tf.Variable };
  /** `[hd]` RMSNorm weights applied to every q head and every k head before RoPE, qwen3 only. */
  qkNorm?: { q: tf.Variable; k: tf.Variable };
  /** `[H·hd, D]`. */
  o: tf.Variable;
  postNorm: tf.Variable;
  /** `[D, F]` each. */
  gate: tf.Variable;
  up: tf.Variable;
  /** `[F, D]`. */
  down: tf.Variable;
}

export interface Weights {
  /** `[V, D]`. */
  embed: tf.Variable;
  layers: LayerWeights[];
  finalNorm: tf.Variable;
  /** `[D, V]` when embeddings are untied. */
  lmHead?: tf.Variable;
  /** `[D, 1]` and `[1]` when the model has a value head. */
  valueHead?: { weight: tf.Variable; bias: tf.Variable };
}

/** Variables in a stable order (copies of a model pair their variables by position). */
export function weightList(w: Weights): tf.Variable[] {
  const list = [w.embed];
  for (const l of w.layers) {
    list.push(l.inputNorm, l.q, l.k, l.v);
    if (l.bias) list.push(l.bias.q, l.bias.k, l.bias.v);
    if (l.qkNorm) list.push(l.qkNorm.q, l.qkNorm.k);
    list.push(l.o, l.postNorm, l.gate, l.up, l.down);
  }
  list.push(w.finalNorm);
  if (w.lmHead) list.push(w.lmHead);
  if (w.valueHead) list.push(w.valueHead.weight, w.valueHead.bias);
  return list;
}

/**
 * Fresh weights: N(0, 0.02), with the residual output projections scaled by 1/√(2·layers) (GPT-2) so
 * the residual stream keeps unit scale at init; norms start at one.
 */
export function initWeights(c: ModelConfig, seed: number): Weights {
  const hd = headDim(c);
  let n = 0;
  const normal = (shape: number[], std: number, name: string) =>
    tf.variable(
      tf.tidy(() => tf.randomNormal(shape, 0, std, "float32", seed + n++)),
      true,
      name,
    );
  const ones = (size: number, name: string) => tf.variable(tf.ones([size]), true, name);
  const zeros = (shape: number[], name: string) => tf.variable(tf.zeros(shape), true, name);
  const residualStd = 0.02 / Math.sqrt(2 * c.nLayers);
  const uid = `${seed}_${Math.random().toString(36).slice(2)}`;
  const layers = Array.from({ length: c.nLayers }, (_, i): LayerWeights => {
    const p = `${uid}_l${i}_`;
    return {
      inputNorm: ones(c.dModel, `${p}in`),
      q: normal([c.dModel, c.nHeads * hd], 0.02, `${p}q`),
      k: normal([c.dModel, c.nKvHeads * hd], 0.02, `${p}k`),
      v: normal([c.dModel, c.nKvHeads * hd], 0.02, `${p}v`),
      ...(c.arch === "qwen2"
        ? {
            bias: {
              q: zeros([c.nHeads * hd], `${p}qb`),
              k: zeros([c.nKvHeads * hd], `${p}kb`),
              v: zeros([c.nKvHeads * hd], `${p}vb`),
            },
          }
        : {}),
      ...(c.arch === "qwen3" ? { qkNorm: { q: ones(hd, `${p}qn`), k: ones(hd, `${p}kn`) } } : {}),
      o: normal([c.nHeads * hd, c.dModel], residualStd, `${p}o`),
      postNorm: ones(c.dModel, `${p}post`),
      gate: normal([c.dModel, c.dFf], 0.02, `${p}gate`),
      up: normal([c.dModel, c.dFf], 0.02, `${p}up`),
      down: normal([c.dFf, c.dModel], residualStd, `${p}down`),
    };
  });
  return {
    embed: normal([c.vocabSize, c.dModel], 0.02, `${uid}_embed`),
    layers,
    finalNorm: ones(c.dModel, `${uid}_norm`),
    ...(c.tieEmbeddings ? {} : { lmHead: normal([c.dModel, c.vocabSize], 0.02, `${uid}_lm`) }),
    ...(c.valueHead
      ? { valueHead: { weight: normal([c.dModel, 1], 0.02, `${uid}_vw`), bias: zeros([1], `${uid}_vb`) } }
      : {}),
  };
}

export function disposeWeights(w: Weights): void {
  for (const v of weightList(w)) v.dispose();
}
