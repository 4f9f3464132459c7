import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../backend/backend.js";
import { loadCheckpoint } from "./checkpoint.js";

// Folders written by transformers' save_pretrained and the logits and greedy tokens it computed for
// them (tests/fixtures/hf-models/make.py, seeds in the script): Qwen3 tied and untied, and Llama 3's
// llama3 RoPE scaling. edgegym loads each folder as it is and must compute the same numbers.
const FIXTURES = fileURLToPath(new URL("../../tests/fixtures/hf-models/", import.meta.url));

type Reference = { ids: number[]; logits: number[][]; greedyPrompt: number[]; greedy: number[] };

const reference = (name: string): Reference =>
  JSON.parse(readFileSync(`${FIXTURES}${name}/logits.json`, "utf8")) as Reference;

beforeAll(async () => {
  const ready = await initBackend("cpu");
  if (!ready.ok) throw new Error(ready.error);
});

describe.each([
  ["qwen3-tied", "qwen3", 16],
  ["qwen3-untied", "qwen3", 8],
  ["llama3-rope", "llama", 16],
])("%s: transformers' own folder", (name, arch, headDim) => {
  it("loads with its architecture and head_dim, and gives transformers' logits and greedy tokens", async () => {
    const loaded = await loadCheckpoint(`${FIXTURES}${name}`);
    if (!loaded.ok) throw new Error(loaded.error);
    const { model } = loaded.value;
    expect(model.config.arch).toBe(arch);
    expect(model.config.headDim ?? model.config.dModel / model.config.nHeads).toBe(headDim);
    const ref = reference(name);
    const ours = tf.tidy(() => model.logits(tf.tensor2d([ref.ids], undefined, "int32")).arraySync()[0]);
    let worst = 0;
    ref.logits.forEach((row, t) => {
      row.forEach((x, v) => {
        worst = Math.max(worst, Math.abs(x - (ours?.[t]?.[v] as number)));
      });
    });
    // float32 both sides, logits of magnitude ~6: differences are rounding (measured ~1e-6).
    expect(worst).toBeLessThan(1e-4);
    const sampled = await model.sample([ref.greedyPrompt], {
      maxNewTokens: ref.greedy.length,
      temperature: 0,
      topP: 1,
      stopIds: [],
      seed: 0,
    });
    expect(sampled.tokens[0]).toEqual(ref.greedy);
    model.dispose();
  });
});

it("the scaled RoPE changes Llama's logits (so the fixture can tell a missing scaling)", async () => {
  const loaded = await loadCheckpoint(`${FIXTURES}llama3-rope`);
  if (!loaded.ok) throw new Error(loaded.error);
  const { model } = loaded.value;
  const { ropeScaling: _, ...plain } = model.config;
  const { Transformer } = await import("../model/transformer.js");
  const unscaled = new Transformer(plain, (model as InstanceType<typeof Transformer>).weights);
  const ref = reference("llama3-rope");
  const ids = tf.tensor2d([ref.ids], undefined, "int32");
  const gap = tf.tidy(() => tf.max(tf.abs(tf.sub(model.logits(ids), unscaled.logits(ids)))).dataSync()[0]);
  expect(gap).toBeGreaterThan(1e-2);
  ids.dispose();
  model.dispose();
});
