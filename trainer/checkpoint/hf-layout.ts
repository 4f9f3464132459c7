import * as tf from "@tensorflow/tfjs-core";
import { err, ok, type Result } from "../../shared/result.js";
import { headDim } from "../model/config.js";
import type { LayerWeights, Weights } from "../model/weights.js";
import type { ModelConfig } from "../policy/types.js";
import type { StoredTensor } from "./safetensors.js";

/**
 * Hugging Face Qwen2/Llama tensor names and layout: linear weights are `[out, in]` (we keep `[in, out]`),
 * and q/k/v and gate/up are separate tensors (we fuse them).
 */

/** Columns [from, to) of a row-major `[rows, cols]` matrix, transposed to `[to − from, rows]`. */
function columnsTransposed(
  data: Float32Array,
  rows: number,
  cols: number,
  from: number,
  to: number,
): StoredTensor {
  const out = new Float32Array((to - from) * rows);
  for (let r = 0; r < rows; r++) {
    for (let c = from; c < to; c++) out[(c - from) * rows + r] = data[r * cols + c] as number;
  }
  return { shape: [to - from, rows], data: out };
}

/** `[out_i, in]` parts → one `[in, Σ out_i]` matrix. */
function stackTransposed(parts: StoredTensor[], inner: number): Float32Array {
  const total = parts.reduce((a, p) => a + (p.shape[0] as number), 0);
  const out = new Float32Array(inner * total);
  let offset = 0;
  for (const p of parts) {
    const outDim = p.shape[0] as number;
    for (let o = 0; o < outDim; o++) {
      for (let i = 0; i < inner; i++) out[i * total + offset + o] = p.data[o * inner + i] as number;
    }
    offset += outDim;
  }
  return out;
}

const values = (v: tf.Variable): Float32Array => v.dataSync() as Float32Array;

export function exportHfTensors(w: Weights, c: ModelConfig): Map<string, StoredTensor> {
  const hd = headDim(c);
  const q = c.nHeads * hd;
  const kv = c.nKvHeads * hd;
  const width = q + 2 * kv;
  const out = new Map<string, StoredTensor>();
  out.set("model.embed_tokens.weight", { shape: [c.vocabSize, c.dModel], data: values(w.embed) });
  w.layers.forEach((l, i) => {
    const p = `model.layers.${i}.`;
    const qkv = values(l.qkv);
    out.set(`${p}self_attn.q_proj.weight`, columnsTransposed(qkv, c.dModel, width, 0, q));
    out.set(`${p}self_attn.k_proj.weight`, columnsTransposed(qkv, c.dModel, width, q, q + kv));
    out.set(`${p}self_attn.v_proj.weight`, columnsTransposed(qkv, c.dModel, width, q + kv, width));
    if (l.qkvBias) {
      const b = values(l.qkvBias);
      out.set(`${p}self_attn.q_proj.bias`, { shape: [q], data: b.slice(0, q) });
      out.set(`${p}self_attn.k_proj.bias`, { shape: [kv], data: b.slice(q, q + kv) });
      out.set(`${p}self_attn.v_proj.bias`, { shape: [kv], data: b.slice(q + kv) });
    }
    out.set(`${p}self_attn.o_proj.weight`, columnsTransposed(values(l.o), q, c.dModel, 0, c.dModel));
    const gu = values(l.gateUp);
    out.set(`${p}mlp.gate_proj.weight`, columnsTransposed(gu, c.dModel, 2 * c.dFf, 0, c.dFf));
    out.set(`${p}mlp.up_proj.weight`, columnsTransposed(gu, c.dModel, 2 * c.dFf, c.dFf, 2 * c.dFf));
    out.set(`${p}mlp.down_proj.weight`, columnsTransposed(values(l.down), c.dFf, c.dModel, 0, c.dModel));
    out.set(`${p}input_layernorm.weight`, { shape: [c.dModel], data: values(l.inputNorm) });
    out.set(`${p}post_attention_layernorm.weight`, { shape: [c.dModel], data: values(l.postNorm) });
  });
  out.set("model.norm.weight", { shape: [c.dModel], data: values(w.finalNorm) });
  if (w.lmHead)
    out.set("lm_head.weight", columnsTransposed(values(w.lmHead), c.dModel, c.vocabSize, 0, c.vocabSize));
  if (w.valueHead) {
    out.set("value_head.weight", { shape: [1, c.dModel], data: values(w.valueHead.weight) });
    out.set("value_head.bias", { shape: [1], data: values(w.valueHead.bias) });
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
  const take = (name: string, shape: number[]): StoredTensor => {
    const t = tensors.get(name);
    if (!t) problems.push(`missing tensor ${name}`);
    else if (t.shape.join() !== shape.join()) {
      problems.push(`tensor ${name} has shape [${t.shape}], expected [${shape}]`);
    } else return t;
    return { shape, data: new Float32Array(shape.reduce((a, b) => a * b, 1)) };
  };
  const variable = (data: Float32Array | Int32Array, shape: number[]) =>
    tf.variable(tf.tensor(Float32Array.from(data), shape, "float32"));
  const parts: LayerWeights[] = [];
  for (let i = 0; i < c.nLayers; i++) {
    const p = `model.layers.${i}.`;
    const qkv = ["q", "k", "v"].map((x, j) =>
      take(`${p}self_attn.${x}_proj.weight`, [(j === 0 ? c.nHeads : c.nKvHeads) * hd, c.dModel]),
    );
    const width = (c.nHeads + 2 * c.nKvHeads) * hd;
    const gu = [
      take(`${p}mlp.gate_proj.weight`, [c.dFf, c.dModel]),
      take(`${p}mlp.up_proj.weight`, [c.dFf, c.dModel]),
    ];
    const layer: LayerWeights = {
      inputNorm: variable(take(`${p}input_layernorm.weight`, [c.dModel]).data, [c.dModel]),
      qkv: variable(stackTransposed(qkv, c.dModel), [c.dModel, width]),
      o: variable(
        stackTransposed([take(`${p}self_attn.o_proj.weight`, [c.dModel, c.nHeads * hd])], c.nHeads * hd),
        [c.nHeads * hd, c.dModel],
      ),
      postNorm: variable(take(`${p}post_attention_layernorm.weight`, [c.dModel]).data, [c.dModel]),
      gateUp: variable(stackTransposed(gu, c.dModel), [c.dModel, 2 * c.dFf]),
      down: variable(stackTransposed([take(`${p}mlp.down_proj.weight`, [c.dModel, c.dFf])], c.dFf), [
        c.dFf,
        c.dModel,
      ]),
    };
    if (c.arch === "qwen2") {
      const biases = ["q", "k", "v"].map((x, j) =>
        take(`${p}self_attn.${x}_proj.bias`, [(j === 0 ? c.nHeads : c.nKvHeads) * hd]),
      );
      const joined = new Float32Array(width);
      let at = 0;
      for (const b of biases) {
        joined.set(b.data, at);
        at += b.data.length;
      }
      layer.qkvBias = variable(joined, [width]);
    }
    parts.push(layer);
  }
  const embed = variable(take("model.embed_tokens.weight", [c.vocabSize, c.dModel]).data, [
    c.vocabSize,
    c.dModel,
  ]);
  const finalNorm = variable(take("model.norm.weight", [c.dModel]).data, [c.dModel]);
  const weights: Weights = { embed, layers: parts, finalNorm };
  if (!c.tieEmbeddings) {
    const lm = take("lm_head.weight", [c.vocabSize, c.dModel]);
    weights.lmHead = variable(stackTransposed([lm], c.dModel), [c.dModel, c.vocabSize]);
  }
  if (c.valueHead) {
    const vw = tensors.get("value_head.weight");
    const vb = tensors.get("value_head.bias");
    weights.valueHead = {
      weight: variable(vw ? take("value_head.weight", [1, c.dModel]).data : new Float32Array(c.dModel), [
        c.dModel,
        1,
      ]),
      bias: variable(vb ? take("value_head.bias", [1]).data : new Float32Array(1), [1]),
    };
  }
  if (problems.length > 0) {
    for (const v of [embed, finalNorm, ...parts.flatMap((l) => Object.values(l) as tf.Variable[])])
      v.dispose();
    weights.lmHead?.dispose();
    weights.valueHead?.weight.dispose();
    weights.valueHead?.bias.dispose();
    return err(problems.join("; "));
  }
  return ok(weights);
}
