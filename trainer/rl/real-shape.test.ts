import { access, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import { afterAll, describe, expect, it } from "vitest";
import { loadCheckpoint, saveCheckpoint } from "../checkpoint/checkpoint.js";
import { fromHfConfig } from "../checkpoint/hf-config.js";
import { checkTrainingMemory } from "../model/memory.js";
import { SMOLLM2_135M, writeRandomHfModel } from "../testing/real-shape-fixture.js";
import { resolveTrainConfig } from "./config.js";
import { runTraining } from "./run.js";

/**
 * SmolLM2-135M's shape (vocab 49,152, d 576, 9 heads / 3 KV heads, d_ff 1,536, tied embeddings) with
 * random weights in HF layout and a 49,152-id ByteLevel BPE tokenizer, one GRPO iteration of 4
 * episodes against local:calculator on wasm. All 30 layers do not fit wasm's 4 GiB heap (weights,
 * two gradients and two Adam moments of 134.5M parameters are 2.6 GB before activations; the run
 * aborted with XNNPACK out of memory, and the memory estimate now refuses it), and 2 layers already
 * take 31 s on an idle 2-core machine, 75 s on a loaded one (docs/trainer.md, "Training a real model"), so the test keeps every
 * dimension but the depth: LAYERS layers (EDGEGYM_REAL_SHAPE_LAYERS sets another depth). The
 * context is 256 tokens (max_position_embeddings), which the calculator's episodes fit and whose
 * estimate fits the wasm heap.
 */
const LAYERS = Number(process.env.EDGEGYM_REAL_SHAPE_LAYERS ?? 2);

let dir = "";
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("a real model shape", () => {
  it("refuses all 30 layers on wasm before loading, with the numbers", () => {
    const config = fromHfConfig({ ...SMOLLM2_135M, max_position_embeddings: 256 });
    if (!config.ok) throw new Error(config.error);
    const check = checkTrainingMemory(config.value, { reference: false, backend: "wasm" });
    expect(check.ok ? check.line : check.error).toMatch(
      /^memory: estimated peak of a training pass 4\d{3} MiB \(weights 514 MiB, .* against 4096 MiB \(the wasm heap\): it does not fit/,
    );
  });

  it(`loads a SmolLM2-135M-shaped HF folder (${LAYERS} layers) and runs one GRPO iteration on wasm`, async () => {
    dir = await mkdtemp(join(tmpdir(), "edgegym-real-shape-"));
    const model = join(dir, "model");
    await writeRandomHfModel(model, {
      ...SMOLLM2_135M,
      num_hidden_layers: LAYERS,
      max_position_embeddings: 256,
    });
    const config = resolveTrainConfig({}, [
      `out=${join(dir, "run")}`,
      `init=${model}`,
      "backend=wasm",
      "env=local:calculator",
      "iterations=1",
      "tasksPerIteration=1",
      "groupSize=4",
      "maxSteps=2",
      "maxNewTokens=12",
    ]);
    if (!config.ok) throw new Error(config.error);
    const logs: string[] = [];
    const result = await runTraining(config.value, {
      log: (l) => logs.push(l),
      saveCheckpoint,
      loadCheckpoint,
    });
    if (!result.ok) throw new Error(result.error);
    // The estimate is printed before the run, from the shapes.
    expect(logs.find((l) => l.startsWith("memory: estimated peak of a training pass"))).toMatch(
      /against 4096 MiB \(the wasm heap\)$/,
    );
    expect(result.value.last["episode/count"]).toBe(4);
    expect(Number.isFinite(result.value.last["losses/policy"])).toBe(true);
    expect(Number.isFinite(result.value.last["grad/norm"])).toBe(true);
    // The trained checkpoint carries the 49,152-id tokenizer and the same shapes.
    const final = join(dir, "run", "checkpoints", "final");
    await access(join(final, "tokenizer.json"));
    const saved = JSON.parse(await readFile(join(final, "config.json"), "utf8"));
    expect(saved).toMatchObject({ vocab_size: 49_152, hidden_size: 576, num_key_value_heads: 3 });
    expect(tf.getBackend()).toBe("wasm");
  }, 600_000);
});
