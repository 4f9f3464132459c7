import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../backend/backend.js";
import { loadCheckpoint, saveCheckpoint } from "../checkpoint/checkpoint.js";
import { createModel } from "../model/create-model.js";
import { QWEN3_DIR } from "../testing/tokenizer-fixtures.js";
import { loadHfTokenizer } from "../tokenizer/hf-tokenizer.js";
import { resolveTrainConfig } from "./config.js";
import { runRl } from "./run.js";

/**
 * A random Qwen3-shaped policy (q/k norms, head_dim 16 wider than hidden 32 / 4 heads, GQA 4:2, tied
 * head) over the real Qwen3 tokenizer's 151,669 ids and its chat template, saved as a checkpoint and
 * trained by one GRPO iteration against local:calculator. The architecture's logits are pinned by
 * transformers' (checkpoint/transformers-logits.test.ts); this is the run end to end.
 */
let dir = "";
beforeAll(async () => {
  const ready = await initBackend("wasm");
  if (!ready.ok) throw new Error(ready.error);
  dir = await mkdtemp(join(tmpdir(), "edgegym-qwen3-rl-"));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("Qwen3 end to end", () => {
  it("runs one GRPO iteration on a random Qwen3-shaped model with Qwen3's tokenizer and template", async () => {
    const tokenizer = await loadHfTokenizer(QWEN3_DIR);
    if (!tokenizer.ok) throw new Error(tokenizer.error);
    const model = createModel(
      {
        arch: "qwen3",
        vocabSize: tokenizer.value.vocabSize,
        dModel: 32,
        nLayers: 2,
        nHeads: 4,
        headDim: 16,
        nKvHeads: 2,
        dFf: 64,
        contextLength: 512,
        tieEmbeddings: true,
        valueHead: true,
      },
      { seed: 3 },
    );
    if (!model.ok) throw new Error(model.error);
    const init = join(dir, "init");
    const saved = await saveCheckpoint(init, {
      model: model.value,
      tokenizer: tokenizer.value,
      meta: { step: 0 },
    });
    if (!saved.ok) throw new Error(saved.error);
    model.value.dispose();
    const config = resolveTrainConfig({}, [
      `out=${join(dir, "run")}`,
      `init=${init}`,
      "backend=wasm",
      "env=local:calculator",
      "iterations=1",
      "tasksPerIteration=1",
      "groupSize=4",
      "maxSteps=2",
      "maxNewTokens=8",
      "seed=5",
    ]);
    if (!config.ok) throw new Error(config.error);
    const result = await runRl(config.value, { log: () => {}, saveCheckpoint, loadCheckpoint });
    if (!result.ok) throw new Error(result.error);
    expect(result.value.last["episode/count"]).toBe(4);
    expect(Number.isFinite(result.value.last["losses/policy"])).toBe(true);
    // A random policy solves no task, so GRPO's advantages (and the gradient) may all be zero.
    expect(Number.isFinite(result.value.last["grad/norm"])).toBe(true);
    // The prompts were Qwen3's template: every trajectory starts with <|im_start|>.
    const trajectories = await readFile(join(dir, "run", "trajectories.jsonl"), "utf8");
    expect(trajectories).toContain("<|im_start|>");
    const final = JSON.parse(await readFile(join(dir, "run", "checkpoints", "final", "config.json"), "utf8"));
    expect(final).toMatchObject({ model_type: "qwen3", head_dim: 16, vocab_size: 151_669 });
  }, 300_000);
});
