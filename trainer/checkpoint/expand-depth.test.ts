import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../backend/backend.js";
import { createModel } from "../model/create-model.js";
import type { Transformer } from "../model/transformer.js";
import type { PolicyModel } from "../model/types.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import { loadCheckpoint, saveCheckpoint } from "./checkpoint.js";
import { depthPlan, expandDepth } from "./expand-depth.js";

let dir = "";
beforeAll(async () => {
  const ready = await initBackend("cpu");
  if (!ready.ok) throw new Error(ready.error);
  dir = await mkdtemp(join(tmpdir(), "edgegym-expand-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const slots = (s: string) =>
  s.split(" ").map((x) => ({ source: Number(x.replace("'", "")), identity: x.endsWith("'") }));

describe("depthPlan", () => {
  it("puts copy k of to − from after old layer ⌈(k + 1)·from / (to − from)⌉ − 1, with zero outputs", () => {
    // 2 → 4: copies after ⌈1·2/2⌉ − 1 = 0 and ⌈2·2/2⌉ − 1 = 1.
    expect(depthPlan(2, 4)).toEqual({ ok: true, value: slots("0 0' 1 1'") });
    // 2 → 3: one copy, after ⌈1·2/1⌉ − 1 = 1.
    expect(depthPlan(2, 3)).toEqual({ ok: true, value: slots("0 1 1'") });
    // 3 → 5: after ⌈1·3/2⌉ − 1 = 1 and ⌈2·3/2⌉ − 1 = 2.
    expect(depthPlan(3, 5)).toEqual({ ok: true, value: slots("0 1 1' 2 2'") });
    // 2 → 8: six copies; k = 0, 1, 2 give ⌈1/3⌉, ⌈2/3⌉, ⌈3/3⌉ − 1 = 0, k = 3, 4, 5 give ⌈4/3⌉, ⌈5/3⌉, ⌈6/3⌉ − 1 = 1.
    expect(depthPlan(2, 8)).toEqual({ ok: true, value: slots("0 0' 0' 0' 1 1' 1' 1'") });
  });

  it("refuses a depth that is not deeper, not whole, or more than four times the checkpoint's", () => {
    for (const to of [2, 1, 2.5, 9]) {
      const plan = depthPlan(2, to);
      expect(plan.ok).toBe(false);
      if (!plan.ok) expect(plan.error).toBe(`layers must be an integer above 2 and at most 8, got ${to}`);
    }
  });
});

function logprobsOf(model: PolicyModel, ids: number[][]): number[] {
  return tf.tidy(() => {
    const input = tf.tensor2d(
      ids.map((r) => r.slice(0, -1)),
      undefined,
      "int32",
    );
    const targets = tf.tensor2d(
      ids.map((r) => r.slice(1)),
      undefined,
      "int32",
    );
    return Array.from(model.logprobsOf(input, targets).dataSync());
  });
}

describe("expandDepth", () => {
  it("computes what the shallower model computed, saved and loaded back, with copies whose outputs start at zero", async () => {
    const made = createModel(
      { dModel: 32, nLayers: 2, nHeads: 4, nKvHeads: 2, dFf: 48, contextLength: 16, valueHead: true },
      { seed: 5 },
    );
    if (!made.ok) throw new Error(made.error);
    const ids = [
      [257, 104, 105, 263, 261, 111, 107, 33],
      [257, 200, 14, 99, 3, 261, 42, 263],
    ];
    const before = logprobsOf(made.value, ids);
    const deeper = await expandDepth(
      { model: made.value, tokenizer: new ByteTokenizer(), meta: { step: 7 } },
      4,
    );
    if (!deeper.ok) throw new Error(deeper.error);
    const { checkpoint } = deeper.value;
    expect(checkpoint.model.config.nLayers).toBe(4);
    expect(checkpoint.meta.step).toBe(0);
    expect(checkpoint.optimizer).toBeUndefined();
    const model = checkpoint.model as Transformer;
    const [l0, copy0] = [model.weights.layers[0], model.weights.layers[1]];
    if (!l0 || !copy0) throw new Error("missing layers");
    // The copy keeps its source's attention inputs and MLP gate, and writes nothing to the stream.
    expect(Array.from(copy0.q.dataSync())).toEqual(Array.from(l0.q.dataSync()));
    expect(Array.from(copy0.gate.dataSync())).toEqual(Array.from(l0.gate.dataSync()));
    expect(copy0.o.dataSync().every((x) => x === 0)).toBe(true);
    expect(copy0.down.dataSync().every((x) => x === 0)).toBe(true);
    expect(l0.o.dataSync().some((x) => x !== 0)).toBe(true);
    const after = logprobsOf(model, ids);
    // x + 0 is x: the copies add exact zeros, so the deeper model's log-probabilities are the same floats.
    expect(after).toHaveLength(14);
    expect(after).toEqual(before);

    const saved = await saveCheckpoint(join(dir, "deeper"), checkpoint);
    expect(saved.ok).toBe(true);
    const loaded = await loadCheckpoint(join(dir, "deeper"));
    if (!loaded.ok) throw new Error(loaded.error);
    expect(loaded.value.model.config.nLayers).toBe(4);
    expect(logprobsOf(loaded.value.model, ids)).toEqual(after);
  });
});
