import { describe, expect, it } from "vitest";
import { resolveModelConfig } from "./config.js";
import { checkTrainingMemory, estimateTrainingMemory, parameterCount, WASM_HEAP_BYTES } from "./memory.js";
import type { ModelConfig } from "./types.js";

const config = (partial: Partial<ModelConfig>): ModelConfig => {
  const made = resolveModelConfig(partial);
  if (!made.ok) throw new Error(made.error);
  return made.value;
};

const SMOLLM2_135M = config({
  arch: "llama",
  vocabSize: 49_152,
  dModel: 576,
  nLayers: 30,
  nHeads: 9,
  nKvHeads: 3,
  dFf: 1536,
  contextLength: 2048,
  tieEmbeddings: true,
});

describe("training memory estimate", () => {
  it("counts SmolLM2-135M's 134,515,008 parameters", () => {
    // 49152·576 embedding + 30 · (2·576 norms + 576·(9+6)·64 qkv + 576·576 o + 3·576·1536 MLP) + 576
    // = 28,311,552 + 30 · 3,540,096 + 576, the figure transformers prints for the model.
    expect(parameterCount(SMOLLM2_135M)).toBe(134_515_008);
  });

  it("adds weights, gradients, Adam, the reference, a pass's activations and one vocabulary block", () => {
    const c = config({
      arch: "llama",
      vocabSize: 100,
      dModel: 8,
      nLayers: 1,
      nHeads: 2,
      nKvHeads: 1,
      dFf: 12,
      contextLength: 10,
      tieEmbeddings: true,
    });
    // Parameters: 100·8 + (2·8 + 8·(2+2)·4 + 8·8 + 3·8·12) + 8 = 800 + 496 + 8 = 1304 → 5216 bytes.
    expect(parameterCount(c)).toBe(1304);
    // passCost(1 row, 10 wide) = 10·(1·2·10 + 2·100) = 2200, so a 5000-element budget holds 2 rows.
    const e = estimateTrainingMemory(c, { reference: true, backend: "cpu", passElements: 5000 });
    expect(e.pass).toEqual({ rows: 2, width: 10 });
    // Per token and layer: 3·(10·8 + 6·(2+1)·4 + 5·12) + 3·2·10 = 696, and 3·8·12 = 288 for the layer:
    // 20 tokens · 696 + 288 + 20 · 4·8 = 14848 floats. Vocabulary: 8 blocks · 20 rows · 100 + 2 · 100 · 8 = 17600.
    expect(e.parts).toEqual({
      weights: 5216,
      gradients: 2 * 5216,
      // Adam's moments are on the host; the heap holds the one new value written back, the 100·8 embedding.
      adam: 800 * 4,
      reference: 5216,
      activations: 14848 * 4,
      vocab: 17600 * 4,
    });
    expect(e.total).toBe(5216 * 4 + 800 * 4 + 14848 * 4 + 17600 * 4);
    expect(e.host).toBe(2 * 5216);
    // On webgpu the moments are tensors: two copies of the model and 4 temporaries of the embedding.
    const gpu = estimateTrainingMemory(c, { reference: true, backend: "webgpu", passElements: 5000 });
    expect(gpu.parts.adam).toBe(2 * 5216 + 4 * 800 * 4);
    expect(gpu.host).toBe(0);
  });

  it("prints the numbers, and refuses a run over the budget with them", () => {
    const fits = checkTrainingMemory(SMOLLM2_135M, {
      reference: false,
      backend: "cpu",
      budgetMiB: 64 * 1024,
    });
    expect(fits.ok).toBe(true);
    const refused = checkTrainingMemory(SMOLLM2_135M, { reference: true, backend: "cpu", budgetMiB: 1000 });
    if (refused.ok) throw new Error("a 135M model cannot train in 1000 MiB");
    // Weights, 2 gradients and the reference: 4 copies of the 513 MiB model, plus the rest; on cpu the
    // 2 moments on the host count against the same RAM.
    expect(refused.error).toMatch(
      /^memory: estimated peak of a training pass \d+ MiB \(weights 514 MiB, gradients 1027 MiB, adam 108 MiB, reference 514 MiB, activations \d+ MiB, vocab \d+ MiB; a pass of \d+ × 2048 tokens\), and Adam's moments 1027 MiB in host memory, against 1000 MiB \(memoryBudgetMiB\): it does not fit/,
    );
    const wasm = checkTrainingMemory(SMOLLM2_135M, { reference: false, backend: "wasm" });
    expect(wasm.ok ? wasm.line : wasm.error).toContain(
      `against ${WASM_HEAP_BYTES / 2 ** 20} MiB (the wasm heap)`,
    );
  });

  it("counts the host moments against the machine's RAM, not against the wasm heap", () => {
    const c = { ...SMOLLM2_135M, contextLength: 256 };
    const e = estimateTrainingMemory(c, { reference: false, backend: "wasm" });
    const budgetMiB = Math.ceil((e.total + e.host / 2) / 2 ** 20);
    expect(checkTrainingMemory(c, { reference: false, backend: "wasm", budgetMiB }).ok).toBe(true);
    expect(checkTrainingMemory(c, { reference: false, backend: "cpu", budgetMiB }).ok).toBe(false);
  });
});
