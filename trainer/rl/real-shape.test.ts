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
import { runRl } from "./run.js";

/**
 * SmolLM2-135M's shape (vocab 49,152, d 576, 9 heads / 3 KV heads, d_ff 1,536, tied embeddings) with
 * random weights in HF layout and a 49,152-id ByteLevel BPE tokenizer, one GRPO iteration of 4
 * episodes against local:calculator on wasm. All 30 layers fit wasm's 4 GiB heap now that Adam's
 * moments live in host memory (trainer/optim/named-adam.ts), and `npm run bench:trainer -- --preset
 * real-shape` runs them (minutes on 2 cores; docs/trainer.md, "Training a real model"). Here the
 * estimate is checked at 30 layers and the run keeps every dimension but the depth: LAYERS layers
 * (EDGEGYM_REAL_SHAPE_LAYERS sets another depth). The context is 256 tokens (max_position_embeddings),
 * which the calculator's episodes fit.
 */
const LAYERS = Number(process.env.EDGEGYM_REAL_SHAPE_LAYERS ?? 2);

let dir = "";
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("a real model shape", () => {
  it("fits all 30 layers in the wasm heap, Adam's moments in host memory", () => {
    const config = fromHfConfig({ ...SMOLLM2_135M, max_position_embeddings: 256 });
    if (!config.ok) throw new Error(config.error);
    const check = checkTrainingMemory(config.value, { reference: false, backend: "wasm" });
    if (!check.ok) throw new Error(check.error);
    // At 256 tokens a pass is one row and the estimate just fits: 4,086 MiB of the heap's 4,096.
    expect(check.line).toMatch(
      /^memory: estimated peak of a training pass 4086 MiB \(weights 514 MiB, gradients 1027 MiB, adam 108 MiB, activations 2095 MiB, vocab 344 MiB; a pass of 1 × 256 tokens\), and Adam's moments 1027 MiB in host memory, against 4096 MiB \(the wasm heap\)$/,
    );
    // A KL reference, a fifth copy of the weights on the heap, does not fit.
    const kl = checkTrainingMemory(config.value, { reference: true, backend: "wasm" });
    expect(kl.ok ? kl.line : kl.error).toMatch(
      /reference 514 MiB, .* against 4096 MiB \(the wasm heap\): it does not fit/,
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
    const result = await runRl(config.value, {
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
