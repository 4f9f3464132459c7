import { err, type Result } from "../../shared/result.js";
import { resolveModelConfig } from "../model/config.js";
import type { ModelConfig } from "../policy/types.js";

/** Longest context we build rotary tables for when a HF config asks for more (tables grow with it). */
const MAX_CONTEXT = 4096;

/** ModelConfig → HF config.json (loadable by transformers), with our extras under `edgegym`. */
export function toHfConfig(c: ModelConfig): Record<string, unknown> {
  return {
    architectures: [c.arch === "qwen2" ? "Qwen2ForCausalLM" : "LlamaForCausalLM"],
    model_type: c.arch,
    vocab_size: c.vocabSize,
    hidden_size: c.dModel,
    intermediate_size: c.dFf,
    num_hidden_layers: c.nLayers,
    num_attention_heads: c.nHeads,
    num_key_value_heads: c.nKvHeads,
    max_position_embeddings: c.contextLength,
    rope_theta: c.ropeTheta,
    rms_norm_eps: c.rmsNormEps,
    tie_word_embeddings: c.tieEmbeddings,
    hidden_act: "silu",
    torch_dtype: "float32",
    ...(c.arch === "llama" ? { attention_bias: false } : {}),
    edgegym: { valueHead: c.valueHead, contextLength: c.contextLength },
  };
}

/** HF config.json (Qwen2 or Llama without rope scaling) → ModelConfig. */
export function fromHfConfig(json: Record<string, unknown>): Result<ModelConfig> {
  const arch = json.model_type;
  if (arch !== "qwen2" && arch !== "llama")
    return err(`unsupported model_type ${String(arch)}: need qwen2 or llama`);
  if (json.rope_scaling != null) return err("rope_scaling is not supported");
  if (arch === "llama" && json.attention_bias === true)
    return err("llama with attention_bias is not supported");
  if (json.hidden_act !== undefined && json.hidden_act !== "silu")
    return err(`unsupported hidden_act ${String(json.hidden_act)}`);
  const extra = (json.edgegym ?? {}) as { valueHead?: boolean; contextLength?: number };
  const num = (key: string): number => json[key] as number;
  return resolveModelConfig({
    arch,
    vocabSize: num("vocab_size"),
    dModel: num("hidden_size"),
    dFf: num("intermediate_size"),
    nLayers: num("num_hidden_layers"),
    nHeads: num("num_attention_heads"),
    nKvHeads: (json.num_key_value_heads as number | undefined) ?? num("num_attention_heads"),
    contextLength: extra.contextLength ?? Math.min(num("max_position_embeddings"), MAX_CONTEXT),
    ropeTheta: (json.rope_theta as number | undefined) ?? 10_000,
    rmsNormEps: (json.rms_norm_eps as number | undefined) ?? 1e-6,
    tieEmbeddings: json.tie_word_embeddings === true,
    valueHead: extra.valueHead === true,
  });
}
