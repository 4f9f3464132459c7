import { err, ok, type Result } from "../../shared/result.js";
import { headDim, resolveModelConfig } from "../model/config.js";
import type { Llama3RopeScaling, ModelConfig } from "../model/types.js";
import type { LoadOptions } from "./types.js";

/** Longest context we build rotary tables for when a HF config asks for more (tables grow with it). */
const MAX_CONTEXT = 4096;

const ARCHITECTURES = {
  qwen2: "Qwen2ForCausalLM",
  qwen3: "Qwen3ForCausalLM",
  llama: "LlamaForCausalLM",
} as const;

/** ModelConfig → HF config.json (loadable by transformers), with our extras under `edgegym`. */
export function toHfConfig(c: ModelConfig): Record<string, unknown> {
  const s = c.ropeScaling;
  return {
    architectures: [ARCHITECTURES[c.arch]],
    model_type: c.arch,
    vocab_size: c.vocabSize,
    hidden_size: c.dModel,
    intermediate_size: c.dFf,
    num_hidden_layers: c.nLayers,
    num_attention_heads: c.nHeads,
    num_key_value_heads: c.nKvHeads,
    head_dim: headDim(c),
    max_position_embeddings: c.contextLength,
    rope_theta: c.ropeTheta,
    ...(s
      ? {
          rope_scaling: {
            rope_type: "llama3",
            factor: s.factor,
            low_freq_factor: s.lowFreqFactor,
            high_freq_factor: s.highFreqFactor,
            original_max_position_embeddings: s.originalContext,
          },
        }
      : {}),
    rms_norm_eps: c.rmsNormEps,
    tie_word_embeddings: c.tieEmbeddings,
    hidden_act: "silu",
    torch_dtype: "float32",
    ...(c.arch === "qwen2" ? {} : { attention_bias: false }),
    ...(c.arch === "qwen3" ? { use_sliding_window: false } : {}),
    edgegym: { valueHead: c.valueHead, contextLength: c.contextLength },
  };
}

type Json = Record<string, unknown>;

/**
 * RoPE's scaling: `rope_scaling` (or transformers ≥ 5's `rope_parameters`) absent, of type "default",
 * or of type "llama3" (Llama 3.1–3.2), which is implemented; any other type is refused.
 */
function ropeScaling(json: Json): Result<Llama3RopeScaling | undefined> {
  let scaling: Llama3RopeScaling | undefined;
  for (const key of ["rope_scaling", "rope_parameters"]) {
    const value = json[key] as Json | null | undefined;
    if (value == null) continue;
    const type = value.rope_type ?? value.type ?? "default";
    if (type === "default") continue;
    if (type !== "llama3")
      return err(
        `${key} of type ${String(type)} is not supported: only unscaled and llama3 RoPE are implemented`,
      );
    const fields = ["factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"];
    const missing = fields.filter((f) => typeof value[f] !== "number");
    if (missing.length > 0) return err(`${key} of type llama3 lacks ${missing.join(", ")}`);
    const n = (f: string) => value[f] as number;
    if (n("high_freq_factor") <= n("low_freq_factor"))
      return err(`${key}: high_freq_factor must exceed low_freq_factor`);
    scaling = {
      factor: n("factor"),
      lowFreqFactor: n("low_freq_factor"),
      highFreqFactor: n("high_freq_factor"),
      originalContext: n("original_max_position_embeddings"),
    };
  }
  return ok(scaling);
}

/**
 * Qwen2's and Qwen3's sliding window as transformers' Qwen2Config and Qwen3Config define it: `sliding_window` counts only when
 * `use_sliding_window` is true, and only on layers ≥ `max_window_layers` (default 28), or on those
 * `layer_types` marks "sliding_attention". A query at i then sees keys j with i − j < window, so a
 * window ≥ the longest sequence we run (the context length) masks nothing and changes nothing; a
 * shorter one would, and we do not implement it. Llama has no sliding window.
 */
function slidingProblem(json: Json, contextLength: number): string | undefined {
  if (json.model_type === "llama" || json.use_sliding_window !== true) return undefined;
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
function unsupported(json: Json, arch: ModelConfig["arch"]): string | undefined {
  // Qwen2 always has q/k/v biases and none elsewhere (its modelling code ignores these two fields).
  if (arch !== "qwen2" && json.attention_bias === true)
    return `attention_bias: true (q/k/v/o biases on a ${arch}) is not supported`;
  if (arch === "llama" && json.mlp_bias === true)
    return "mlp_bias: true (gate/up/down biases) is not supported";
  if (json.hidden_act !== undefined && json.hidden_act !== "silu")
    return `unsupported hidden_act ${String(json.hidden_act)}`;
  if (typeof json.attention_dropout === "number" && json.attention_dropout > 0)
    return `attention_dropout ${json.attention_dropout} is not supported (no dropout is implemented)`;
  return undefined;
}

const ARCHS = new Set<unknown>(Object.keys(ARCHITECTURES));

/**
 * HF config.json (Qwen2, Qwen3 or Llama) → ModelConfig. Every field that changes the computation is
 * either implemented (`tie_word_embeddings`, Qwen2's q/k/v biases, Qwen3's q/k norms, GQA, `head_dim`,
 * `rope_theta`, llama3 RoPE scaling, `rms_norm_eps`, a sliding window that masks nothing) or refused
 * naming it, so a loaded model never computes other logits than transformers would.
 * `opts.contextLength` replaces the saved context (the sliding-window check then uses it).
 */
export function fromHfConfig(json: Json, opts: LoadOptions = {}): Result<ModelConfig> {
  const arch = json.model_type;
  if (!ARCHS.has(arch)) return err(`unsupported model_type ${String(arch)}: need qwen2, qwen3 or llama`);
  const family = arch as ModelConfig["arch"];
  const problem = unsupported(json, family);
  if (problem) return err(problem);
  const scaling = ropeScaling(json);
  if (!scaling.ok) return scaling;
  const extra = (json.edgegym ?? {}) as { valueHead?: boolean; contextLength?: number };
  const num = (key: string): number => json[key] as number;
  const contextLength =
    opts.contextLength ?? extra.contextLength ?? Math.min(num("max_position_embeddings"), MAX_CONTEXT);
  const sliding = slidingProblem(json, contextLength);
  if (sliding) return err(sliding);
  const ropeParameters = (json.rope_parameters ?? {}) as { rope_theta?: number };
  const hd = json.head_dim as number | null | undefined;
  return resolveModelConfig({
    arch: family,
    vocabSize: num("vocab_size"),
    dModel: num("hidden_size"),
    dFf: num("intermediate_size"),
    nLayers: num("num_hidden_layers"),
    nHeads: num("num_attention_heads"),
    nKvHeads: (json.num_key_value_heads as number | undefined) ?? num("num_attention_heads"),
    // Kept only when it differs from hidden_size / heads: the config then equals one made without it.
    ...(hd != null && hd !== num("hidden_size") / num("num_attention_heads") ? { headDim: hd } : {}),
    contextLength,
    ropeTheta: (json.rope_theta as number | undefined) ?? ropeParameters.rope_theta ?? 10_000,
    ...(scaling.value ? { ropeScaling: scaling.value } : {}),
    rmsNormEps: (json.rms_norm_eps as number | undefined) ?? 1e-6,
    tieEmbeddings: json.tie_word_embeddings === true,
    valueHead: extra.valueHead === true,
  });
}
