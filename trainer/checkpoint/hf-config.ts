import { err, type Result } from "../../shared/result.js";
import { resolveModelConfig } from "../model/config.js";
import type { LoadOptions, ModelConfig } from "../model/types.js";

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

type Json = Record<string, unknown>;

/** RoPE without scaling: `rope_scaling` absent or of type "default" (transformers ≥ 5 says `rope_parameters`). */
function ropeProblem(json: Json): string | undefined {
  for (const key of ["rope_scaling", "rope_parameters"]) {
    const value = json[key] as Json | null | undefined;
    if (value == null) continue;
    const type = value.rope_type ?? value.type ?? "default";
    if (type !== "default")
      return `${key} of type ${String(type)} is not supported: only unscaled RoPE is implemented`;
  }
  return undefined;
}

/**
 * Qwen2's sliding window as transformers' Qwen2Config defines it: `sliding_window` counts only when
 * `use_sliding_window` is true, and only on layers ≥ `max_window_layers` (default 28), or on those
 * `layer_types` marks "sliding_attention". A query at i then sees keys j with i − j < window, so a
 * window ≥ the longest sequence we run (the context length) masks nothing and changes nothing; a
 * shorter one would, and we do not implement it. Llama has no sliding window.
 */
function slidingProblem(json: Json, contextLength: number): string | undefined {
  if (json.model_type !== "qwen2" || json.use_sliding_window !== true) return undefined;
  const window = json.sliding_window as number | null | undefined;
  if (window == null) return undefined;
  const layers = json.num_hidden_layers as number;
  const firstWindowed = (json.max_window_layers as number | undefined) ?? 28;
  const types = json.layer_types as string[] | undefined;
  const windowed = types
    ? types.flatMap((t, i) => (t === "sliding_attention" ? [i] : []))
    : Array.from({ length: Math.max(0, layers - firstWindowed) }, (_, i) => firstWindowed + i);
  if (windowed.length === 0 || window >= contextLength) return undefined;
  return (
    `use_sliding_window with sliding_window ${window} < context length ${contextLength} on layers ` +
    `${windowed[0]}–${windowed[windowed.length - 1]} (max_window_layers ${firstWindowed}) is not supported: ` +
    "sliding-window attention is not implemented"
  );
}

/** Fields that change the computation and that we do not implement, each named in its refusal. */
function unsupported(json: Json, arch: "qwen2" | "llama"): string | undefined {
  const rope = ropeProblem(json);
  if (rope) return rope;
  // Qwen2 always has q/k/v biases and none elsewhere (its modelling code ignores these two fields).
  if (arch === "llama" && json.attention_bias === true)
    return "attention_bias: true (q/k/v/o biases on a llama) is not supported";
  if (arch === "llama" && json.mlp_bias === true)
    return "mlp_bias: true (gate/up/down biases) is not supported";
  if (json.hidden_act !== undefined && json.hidden_act !== "silu")
    return `unsupported hidden_act ${String(json.hidden_act)}`;
  const heads = json.num_attention_heads as number;
  const derived = (json.hidden_size as number) / heads;
  if (json.head_dim != null && json.head_dim !== derived)
    return `head_dim ${String(json.head_dim)} differs from hidden_size / num_attention_heads = ${derived}: not supported`;
  if (typeof json.attention_dropout === "number" && json.attention_dropout > 0)
    return `attention_dropout ${json.attention_dropout} is not supported (no dropout is implemented)`;
  return undefined;
}

/**
 * HF config.json (Qwen2 or Llama) → ModelConfig. Every field that changes the computation is either
 * implemented (`tie_word_embeddings`, Qwen2's q/k/v biases, GQA, `rope_theta`, `rms_norm_eps`, a
 * `head_dim` equal to hidden_size / heads, a sliding window that masks nothing) or refused naming it,
 * so a loaded model never computes other logits than transformers would. `opts.contextLength` replaces
 * the saved context (the sliding-window check then uses it).
 */
export function fromHfConfig(json: Json, opts: LoadOptions = {}): Result<ModelConfig> {
  const arch = json.model_type;
  if (arch !== "qwen2" && arch !== "llama")
    return err(`unsupported model_type ${String(arch)}: need qwen2 or llama`);
  const problem = unsupported(json, arch);
  if (problem) return err(problem);
  const extra = (json.edgegym ?? {}) as { valueHead?: boolean; contextLength?: number };
  const num = (key: string): number => json[key] as number;
  const contextLength =
    opts.contextLength ?? extra.contextLength ?? Math.min(num("max_position_embeddings"), MAX_CONTEXT);
  const sliding = slidingProblem(json, contextLength);
  if (sliding) return err(sliding);
  const ropeParameters = (json.rope_parameters ?? {}) as { rope_theta?: number };
  return resolveModelConfig({
    arch,
    vocabSize: num("vocab_size"),
    dModel: num("hidden_size"),
    dFf: num("intermediate_size"),
    nLayers: num("num_hidden_layers"),
    nHeads: num("num_attention_heads"),
    nKvHeads: (json.num_key_value_heads as number | undefined) ?? num("num_attention_heads"),
    contextLength,
    ropeTheta: (json.rope_theta as number | undefined) ?? ropeParameters.rope_theta ?? 10_000,
    rmsNormEps: (json.rms_norm_eps as number | undefined) ?? 1e-6,
    tieEmbeddings: json.tie_word_embeddings === true,
    valueHead: extra.valueHead === true,
  });
}
