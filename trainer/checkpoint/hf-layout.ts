import * as tf from "@tensorflow/tfjs-core";
import { err, ok, type Result } from "../../shared/result.js";
import { headDim } from "../model/config.js";
import type { ModelConfig } from "../model/types.js";
import type { LayerWeights, Weights } from "../model/weights.js";
import type { StoredTensor } from "./safetensors.js";

/**
 * Hugging Face Qwen2/Qwen3/Llama tensor names and layout: linear weights are `[out, in]`; we keep `[in, out]`
 * for `x @ W`, so every linear weight is transposed on the way in and out.
 */

/** Row-major `[rows, cols]` → `[cols, rows]`. */
function transpose(data: Float32Array | Int32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) out[c * rows + r] = data[r * cols + c] as number;
  }
  return out;
}

/** A variable's values: read with await, as webgpu needs, once for the whole export. */
type Values = ReadonlyMap<tf.Variable, Float32Array>;

/** `[in, out]` variable → HF `[out, in]` tensor. */
function linearOut(v: tf.Variable, values: Values): StoredTensor {
  const [rows, cols] = v.shape as [number, number];
  return { shape: [cols, rows], data: transpose(values.get(v) as Float32Array, rows, cols) };
}

const vector = (v: tf.Variable, values: Values): StoredTensor => ({
  shape: [...v.shape],
  data: values.get(v) as Float32Array,
});

/** The names of one layer's tensors and our variable for each. */
function layerEntries(l: LayerWeights): [string, tf.Variable, "linear" | "vector"][] {
  const entries: [string, tf.Variable, "linear" | "vector"][] = [
    ["input_layernorm.weight", l.inputNorm, "vector"],
    ["self_attn.q_proj.weight", l.q, "linear"],
    ["self_attn.k_proj.weight", l.k, "linear"],
    ["self_attn.v_proj.weight", l.v, "linear"],
    ["self_attn.o_proj.weight", l.o, "linear"],
    ["post_attention_layernorm.weight", l.postNorm, "vector"],
    ["mlp.gate_proj.weight", l.gate, "linear"],
    ["mlp.up_proj.weight", l.up, "linear"],
    ["mlp.down_proj.weight", l.down, "linear"],
  ];
  if (l.bias) {
    entries.push(
      ["self_attn.q_proj.bias", l.bias.q, "vector"],
      ["self_attn.k_proj.bias", l.bias.k, "vector"],
      ["self_attn.v_proj.bias", l.bias.v, "vector"],
    );
  }
  if (l.qkNorm) {
    entries.push(
      ["self_attn.q_norm.weight", l.qkNorm.q, "vector"],
      ["self_attn.k_norm.weight", l.qkNorm.k, "vector"],
    );
  }
  return entries;
}

/**
 * Every variable under its HF tensor name. Engine variable names differ between processes and between
 * a fresh and a loaded model; these do not, so state kept per variable (Adam moments) is saved by them.
 */
export function hfVariables(w: Weights): Map<string, tf.Variable> {
  const out = new Map<string, tf.Variable>([["model.embed_tokens.weight", w.embed]]);
  w.layers.forEach((l, i) => {
    for (const [name, v] of layerEntries(l)) out.set(`model.layers.${i}.${name}`, v);
  });
  out.set("model.norm.weight", w.finalNorm);
  if (w.lmHead) out.set("lm_head.weight", w.lmHead);
  if (w.valueHead) {
    out.set("value_head.weight", w.valueHead.weight);
    out.set("value_head.bias", w.valueHead.bias);
  }
  return out;
}

export async function exportHfTensors(w: Weights, c: ModelConfig): Promise<Map<string, StoredTensor>> {
  const variables = [...hfVariables(w).values()];
  const read = await Promise.all(variables.map((v) => v.data()));
  const values: Values = new Map(variables.map((v, i) => [v, read[i] as Float32Array]));
  const out = new Map<string, StoredTensor>();
  out.set("model.embed_tokens.weight", {
    shape: [c.vocabSize, c.dModel],
    data: values.get(w.embed) as Float32Array,
  });
  w.layers.forEach((l, i) => {
    for (const [name, v, kind] of layerEntries(l)) {
      out.set(`model.layers.${i}.${name}`, kind === "linear" ? linearOut(v, values) : vector(v, values));
    }
  });
  out.set("model.norm.weight", vector(w.finalNorm, values));
  if (w.lmHead) out.set("lm_head.weight", linearOut(w.lmHead, values));
  if (w.valueHead) {
    out.set("value_head.weight", {
      shape: [1, c.dModel],
      data: values.get(w.valueHead.weight) as Float32Array,
    });
    out.set("value_head.bias", vector(w.valueHead.bias, values));
  }
  return out;
}

/**
 * Builds weights from HF-named tensors. Missing or misshapen tensors are an error; a value head absent
 * from the file (a plain HF model) starts at zero; a tied model ignores `lm_head.weight`.
 */
export function importHfTensors(tensors: ReadonlyMap<string, StoredTensor>, c: ModelConfig): Result<Weights> {
  const hd = headDim(c);
  const problems: string[] = [];
  const created: tf.Variable[] = [];
  const make = (data: Float32Array, shape: number[]) => {
    const v = tf.variable(tf.tensor(data, shape, "float32"));
    created.push(v);
    return v;
  };
  const take = (name: string, shape: number[]): Float32Array => {
    const t = tensors.get(name);
    const size = shape.reduce((a, b) => a * b, 1);
    if (!t) problems.push(`missing tensor ${name}`);
    else if (t.shape.join() !== shape.join())
      problems.push(`tensor ${name} has shape [${t.shape}], expected [${shape}]`);
    else return Float32Array.from(t.data);
    return new Float32Array(size);
  };
  /** HF `[out, in]` → variable `[in, out]`. */
  const linear = (name: string, outDim: number, inDim: number) =>
    make(transpose(take(name, [outDim, inDim]), outDim, inDim), [inDim, outDim]);
  const vec = (name: string, size: number) => make(take(name, [size]), [size]);
  const layers = Array.from({ length: c.nLayers }, (_, i): LayerWeights => {
    const p = `model.layers.${i}.`;
    const layer: LayerWeights = {
      inputNorm: vec(`${p}input_layernorm.weight`, c.dModel),
      q: linear(`${p}self_attn.q_proj.weight`, c.nHeads * hd, c.dModel),
      k: linear(`${p}self_attn.k_proj.weight`, c.nKvHeads * hd, c.dModel),
      v: linear(`${p}self_attn.v_proj.weight`, c.nKvHeads * hd, c.dModel),
      o: linear(`${p}self_attn.o_proj.weight`, c.dModel, c.nHeads * hd),
      postNorm: vec(`${p}post_attention_layernorm.weight`, c.dModel),
      gate: linear(`${p}mlp.gate_proj.weight`, c.dFf, c.dModel),
      up: linear(`${p}mlp.up_proj.weight`, c.dFf, c.dModel),
      down: linear(`${p}mlp.down_proj.weight`, c.dModel, c.dFf),
    };
    if (c.arch === "qwen2") {
      layer.bias = {
        q: vec(`${p}self_attn.q_proj.bias`, c.nHeads * hd),
        k: vec(`${p}self_attn.k_proj.bias`, c.nKvHeads * hd),
        v: vec(`${p}self_attn.v_proj.bias`, c.nKvHeads * hd),
      };
    }
    if (c.arch === "qwen3")
      layer.qkNorm = { q: vec(`${p}self_attn.q_norm.weight`, hd), k: vec(`${p}self_attn.k_norm.weight`, hd) };
    return layer;
  });
  const weights: Weights = {
    embed: make(take("model.embed_tokens.weight", [c.vocabSize, c.dModel]), [c.vocabSize, c.dModel]),
    layers,
    finalNorm: vec("model.norm.weight", c.dModel),
  };
  if (!c.tieEmbeddings) weights.lmHead = linear("lm_head.weight", c.vocabSize, c.dModel);
  if (c.valueHead) {
    const present = tensors.has("value_head.weight");
    weights.valueHead = {
      weight: make(present ? take("value_head.weight", [1, c.dModel]) : new Float32Array(c.dModel), [
        c.dModel,
        1,
      ]),
      bias: make(present ? take("value_head.bias", [1]) : new Float32Array(1), [1]),
    };
  }
  if (problems.length > 0) {
    for (const v of created) v.dispose();
    return err(problems.join("; "));
  }
  return ok(weights);
}
