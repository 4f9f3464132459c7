/**
 * The policy model's API the rest of the trainer codes against: its architecture, a forward pass's
 * results and sampling. `createModel(config, { seed })` (create-model.ts) makes a fresh
 * {@link PolicyModel}; `resolveModelConfig` (config.ts) fills the defaults.
 */
import type { Tensor2D, Tensor3D, Variable } from "@tensorflow/tfjs-core";

/** Architecture of the decoder (Qwen2/Qwen3/Llama-style). Field names follow HF config.json where one exists. */
export interface ModelConfig {
  /**
   * Model family written to config.json: q/k/v biases (qwen2), an RMSNorm over each q and k head
   * before RoPE and no biases (qwen3), or neither (llama).
   */
  arch: "qwen2" | "llama" | "qwen3";
  vocabSize: number;
  /** Width of the residual stream (HF hidden_size). */
  dModel: number;
  nLayers: number;
  /** Query heads. */
  nHeads: number;
  /** Width of one head (HF head_dim); unset means dModel / nHeads. Qwen3 sets its own (128 at 1024 wide). */
  headDim?: number;
  /** Key/value heads (GQA); must divide nHeads. */
  nKvHeads: number;
  /** SwiGLU inner width (HF intermediate_size). */
  dFf: number;
  /** Longest sequence (prompt + response) the model handles. */
  contextLength: number;
  ropeTheta: number;
  /** Llama 3's RoPE frequency scaling (HF `rope_type: llama3`); unset means plain RoPE. */
  ropeScaling?: Llama3RopeScaling;
  rmsNormEps: number;
  /** Output projection shares the embedding matrix. */
  tieEmbeddings: boolean;
  /** Adds a scalar value head on the final hidden state (PPO / StepPO). */
  valueHead: boolean;
}

/** HF's `rope_scaling` of type llama3, field for field. */
export interface Llama3RopeScaling {
  factor: number;
  lowFreqFactor: number;
  highFreqFactor: number;
  originalContext: number;
}

export interface EvaluateOptions {
  entropy?: boolean;
  values?: boolean;
  /**
   * The value head reads the trunk's hidden state through a stop-gradient, so that a loss on the values
   * trains the value head alone and leaves the policy's weights as they are.
   */
  detachValues?: boolean;
}

/** Per-position results of one forward pass, all `[B, T]`. */
export interface Evaluation {
  /** log π(targets[b,t] | ids[b,≤t]). */
  logprobs: Tensor2D;
  /** −Σ_v π_v log π_v of the next-token distribution; present when asked for. */
  entropy?: Tensor2D;
  /** Value head output; present when asked for and the model has one. */
  values?: Tensor2D;
}

export interface SampleOptions {
  maxNewTokens: number;
  /** 0 means greedy. */
  temperature: number;
  /** Nucleus mass in (0, 1]; 1 keeps the whole distribution. */
  topP: number;
  /** Generation stops for a sequence after it emits one of these (the id is kept in `tokens`). */
  stopIds: readonly number[];
  /**
   * Same seed, same prompts, same weights: same tokens. Row i draws from its own stream,
   * mixSeed(seed, i), so its tokens do not depend on the other rows of the batch.
   */
  seed: number;
  /** Each row's stream seed, overriding mixSeed(seed, i) (a batch split across threads keeps its rows' streams). */
  rowSeeds?: readonly number[];
  /**
   * Budget of one prefill pass in float32 elements (see `passCost`); prompts beyond it are prefilled
   * in several passes, so a batch of long prompts does not hold every row's attention at once.
   * Default `PASS_ELEMENTS`.
   */
  prefillElements?: number;
  /**
   * Called with each token as it is drawn (`row` indexes `prompts`); returning true ends that row
   * there, as a stop id would (its `finished` is then true). The server streams and applies
   * per-request stop strings and max_tokens through it.
   */
  onToken?: (row: number, token: number) => boolean | undefined;
}

export interface SampleResult {
  /** Response ids per prompt (not including the prompt), ending with the stop id when finished. */
  tokens: number[][];
  /**
   * log π(token) per response token under the temperature-scaled distribution (before top-p),
   * i.e. log softmax(logits / temperature); under temperature 1 it equals `evaluate().logprobs`.
   */
  logprobs: number[][];
  /** True when the sequence ended with a stop id; false when cut at maxNewTokens or context. */
  finished: boolean[];
}

/**
 * The decoder. Inputs are right-padded `[B, T]` int32 ids; causal attention makes right padding
 * harmless for the real positions, and callers mask padded positions out of the loss.
 */
export interface PolicyModel {
  readonly config: ModelConfig;
  /** `[B, T]` ids → `[B, T, V]` next-token logits. */
  logits(ids: Tensor2D): Tensor3D;
  /** `[B, T]` ids and targets (usually ids shifted left by one) → `[B, T]` log-probabilities. */
  logprobsOf(ids: Tensor2D, targets: Tensor2D): Tensor2D;
  /** One forward pass giving logprobs and, on request, entropy and values. */
  evaluate(ids: Tensor2D, targets: Tensor2D, opts?: EvaluateOptions): Evaluation;
  /** `[B, T]` value estimates; throws if `config.valueHead` is false. */
  values(ids: Tensor2D): Tensor2D;
  /** Every trainable weight (value head included when present), in a stable order. */
  readonly trainableVariables: readonly Variable[];
  /** The value head's weights among `trainableVariables`; empty without one. */
  readonly valueVariables: readonly Variable[];
  /**
   * Batched generation with a KV cache. Identical prompts (e.g. a GRPO group) are prefilled once.
   * Prompts may differ in length. Every row gets at most min(maxNewTokens, contextLength − longest
   * prompt) tokens (rows cut short are not finished); rejects with a RangeError when a prompt is
   * empty or longer than `contextLength`.
   */
  sample(prompts: readonly (readonly number[])[], opts: SampleOptions): Promise<SampleResult>;
  dispose(): void;
}
