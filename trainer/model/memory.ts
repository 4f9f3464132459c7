import { totalmem } from "node:os";
import { hostMoments, type NamedAdam } from "../optim/named-adam.js";
import { headDim } from "./config.js";
import { PASS_ELEMENTS, passCost } from "./passes.js";
import type { ModelConfig } from "./types.js";
import { chunkRows } from "./vocab-ops.js";

/** tfjs-backend-wasm is a 32-bit WebAssembly module: its heap cannot grow past 4 GiB. */
export const WASM_HEAP_BYTES = 4 * 2 ** 30;
const MIB = 2 ** 20;
const FLOAT = 4;

/** Trainable parameters of a model of this config (embedding, layers, final norm, untied head, value head). */
export function parameterCount(c: ModelConfig): number {
  const hd = headDim(c);
  const qkv =
    c.dModel * (c.nHeads + 2 * c.nKvHeads) * hd +
    (c.arch === "qwen2" ? (c.nHeads + 2 * c.nKvHeads) * hd : 0) +
    (c.arch === "qwen3" ? 2 * hd : 0);
  const layer = 2 * c.dModel + qkv + c.nHeads * hd * c.dModel + 3 * c.dModel * c.dFf;
  return (
    c.vocabSize * c.dModel * (c.tieEmbeddings ? 1 : 2) +
    c.nLayers * layer +
    c.dModel +
    (c.valueHead ? c.dModel + 1 : 0)
  );
}

/**
 * Float32 elements one token keeps alive for the backward pass, per layer. The forward pass's own
 * tensors: the norms' inputs and outputs (≈6·D), q/k/v and their rotated halves, roped and transposed
 * copies (≈6·(H + KV)·hd), three `[H, width]` score tensors (scores, masked, softmax), the SwiGLU's five
 * `F`-wide tensors and the residual adds (≈4·D), counted from forward.ts. The per-width part is three
 * times that: tfjs's backward pass keeps the gradient of every tensor on the tape until it ends (its
 * `tensorAccumulatedGradientMap`, freed by the backward's tidy), about twice the saved tensors again.
 * Measured on wasm (live tensor buffers of one pass, 4 to 30 layers, 96 to 224 tokens): 0.208 MiB per
 * token and layer at SmolLM2-135M's widths, where the forward's count alone gives 0.069; the score
 * tensors' part did not grow with the width as much, so it is counted once.
 */
function perTokenLayer(c: ModelConfig, width: number): number {
  const hd = headDim(c);
  return 3 * (10 * c.dModel + 6 * (c.nHeads + c.nKvHeads) * hd + 5 * c.dFf) + 3 * c.nHeads * width;
}

/**
 * Float32 elements a layer adds to a pass whatever its tokens: one more copy of its MLP weights
 * (measured: 10 MiB a layer at SmolLM2-135M's widths, 3·D·F = 2.65M elements).
 */
const perLayer = (c: ModelConfig): number => 3 * c.dModel * c.dFf;

export type MemoryEstimate = {
  /** Bytes by part on the backend's heap; `total` is their sum. */
  parts: Record<"weights" | "gradients" | "adam" | "reference" | "activations" | "vocab", number>;
  total: number;
  /** Bytes of Adam's moments in JavaScript memory, outside the backend's heap (0 on webgpu). */
  host: number;
  /** The pass the activations were counted for. */
  pass: { rows: number; width: number };
};

/**
 * Peak bytes of a training pass, from the shapes alone: weights, the accumulated and the pass's own
 * gradients, Adam's part, the frozen KL reference when there is one, the activations of the largest
 * pass {@link planPasses} can make (rows of the full context width within `passElements`), and the
 * vocabulary part: the ~8 `[rows, V]` blocks the backward pass of {@link targetScores} holds at once
 * (logits, log-softmax, softmax, their products, the target scatter) plus two `[V, D]` tensors (of the
 * transposed tied embedding, the head's gradient and the gather's scatter-added gradient, two are alive
 * at the pass's peak, at the end of the backward pass: measured 329 MiB at 49,152 × 576 against 343).
 * Adam's part ({@link NamedAdam}): where its moments live on the host, the one new value it writes back
 * at a time (the largest variable, the embedding) on the heap and the two moments in `host`; on webgpu,
 * the two moments and the ~4 temporaries of the largest variable, all on the device.
 */
export function estimateTrainingMemory(
  c: ModelConfig,
  opts: { reference: boolean; backend: string; passElements?: number; width?: number },
): MemoryEstimate {
  const width = Math.min(opts.width ?? c.contextLength, c.contextLength);
  const rows = Math.max(1, Math.floor((opts.passElements ?? PASS_ELEMENTS) / passCost(c, 1, width)));
  const params = parameterCount(c) * FLOAT;
  const embedding = c.vocabSize * c.dModel * FLOAT;
  const host = hostMoments(opts.backend);
  const tokens = rows * width;
  const parts = {
    weights: params,
    gradients: 2 * params,
    adam: host ? embedding : 2 * params + 4 * embedding,
    reference: opts.reference ? params : 0,
    activations:
      (c.nLayers * (tokens * perTokenLayer(c, width) + perLayer(c)) + tokens * 4 * c.dModel) * FLOAT,
    vocab: (8 * Math.min(tokens, chunkRows(c.vocabSize)) * c.vocabSize + 2 * c.vocabSize * c.dModel) * FLOAT,
  };
  const total = Object.values(parts).reduce((a, b) => a + b, 0);
  return { parts, total, host: host ? 2 * params : 0, pass: { rows, width } };
}

/** The memory a backend can use: wasm's 4 GiB heap, else the machine's RAM; `budgetMiB` overrides. */
export function memoryBudget(backend: string, budgetMiB?: number): { bytes: number; source: string } {
  if (budgetMiB !== undefined) return { bytes: budgetMiB * MIB, source: "memoryBudgetMiB" };
  if (backend === "wasm") return { bytes: WASM_HEAP_BYTES, source: "the wasm heap" };
  return { bytes: totalmem(), source: "this machine's RAM" };
}

const mib = (bytes: number) => `${Math.ceil(bytes / MIB)} MiB`;

/**
 * What counts against a backend's budget: on wasm its heap, where the host moments are not; elsewhere
 * the heap and the host moments alike live in the machine's RAM.
 */
export const budgeted = (e: MemoryEstimate, backend: string): number =>
  backend === "wasm" ? e.total : e.total + e.host;

/** One line: the estimate by part against the budget. */
export function describeMemory(e: MemoryEstimate, budget: { bytes: number; source: string }): string {
  const parts = Object.entries(e.parts)
    .filter(([, b]) => b > 0)
    .map(([name, b]) => `${name} ${mib(b)}`)
    .join(", ");
  const host = e.host > 0 ? `, and Adam's moments ${mib(e.host)} in host memory,` : "";
  return (
    `estimated peak of a training pass ${mib(e.total)} (${parts}; a pass of ${e.pass.rows} × ${e.pass.width} tokens)${host} ` +
    `against ${mib(budget.bytes)} (${budget.source})`
  );
}

/**
 * The line a run prints before it starts, or its refusal when the estimate exceeds the budget (a run
 * that would die in the backward pass, where tfjs-wasm reports a full heap as "remainder by zero").
 */
export function checkTrainingMemory(
  c: ModelConfig,
  opts: { reference: boolean; backend: string; budgetMiB?: number; passElements?: number },
): { ok: true; line: string } | { ok: false; error: string } {
  const estimate = estimateTrainingMemory(c, opts);
  const budget = memoryBudget(opts.backend, opts.budgetMiB);
  const line = `memory: ${describeMemory(estimate, budget)}`;
  if (budgeted(estimate, opts.backend) <= budget.bytes) return { ok: true, line };
  return {
    ok: false,
    error:
      `${line}: it does not fit. Use a smaller model or context length, turn the KL reference off ` +
      "(klCoef=0), choose a backend with more memory, or raise memoryBudgetMiB if the estimate is too cautious",
  };
}
