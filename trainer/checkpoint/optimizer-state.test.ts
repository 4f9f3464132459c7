import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../backend/backend.js";
import { createModel } from "../model/create-model.js";
import { Transformer } from "../model/transformer.js";
import type { ModelConfig } from "../model/types.js";
import { createAdam } from "../optim/optimizer-step.js";
import { PolicyPool } from "../parallel/policy-pool.js";
import { sftStep } from "../sft/step.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import { loadCheckpoint, saveCheckpoint } from "./checkpoint.js";
import { decodeOptimizerState, encodeOptimizerState, type OptimizerState } from "./optimizer-state.js";

let dir = "";
beforeAll(async () => {
  const ready = await initBackend("cpu");
  if (!ready.ok) throw new Error(ready.error);
  dir = await mkdtemp(join(tmpdir(), "edgegym-optstate-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const SHAPE = { dModel: 16, nLayers: 2, nHeads: 2, nKvHeads: 1, dFf: 24, contextLength: 16 };
const IDS = [257, 260, 104, 105, 263, 261, 111, 107];
const BATCH = { ids: [IDS.slice(0, -1)], targets: [IDS.slice(1)], mask: [[0, 0, 0, 1, 1, 1, 1]] };

function transformer(shape: Partial<ModelConfig> = {}): Transformer {
  const made = createModel({ ...SHAPE, ...shape }, { seed: 3 });
  if (!made.ok || !(made.value instanceof Transformer)) throw new Error("no model");
  return made.value;
}

/** A model without a value head after one Adam step, and its encoded optimizer state. */
async function trainedState(): Promise<{ model: Transformer; state: OptimizerState }> {
  const model = transformer({ valueHead: false });
  const adam = createAdam({ learningRate: 1e-2 });
  await sftStep(PolicyPool.of({ policy: model }), adam, BATCH);
  const state = await encodeOptimizerState(adam, model.weights);
  if (!state.ok) throw new Error(state.error);
  return { model, state: state.value };
}

const decode = (state: OptimizerState, target: Transformer) =>
  decodeOptimizerState({ ...state.file }, state.tensors, target.weights);

describe("optimizer state by variable name", () => {
  it("names every slot by its HF tensor name and counts the steps", async () => {
    const { state } = await trainedState();
    // Qwen2 by default: 2 layers × (9 tensors + q/k/v biases) + embedding + final norm; the
    // embeddings are tied, so no lm_head.
    expect(state.file.variables).toHaveLength(2 * (9 + 3) + 2);
    expect(state.file.variables).toContain("model.layers.1.mlp.down_proj.weight");
    expect(state.file.iterations).toBe(1);
    expect(state.tensors.get("m/model.layers.1.mlp.down_proj.weight")?.shape).toEqual([24, 16]);
  });

  it("gives a value head added after the save fresh moments and steps it", async () => {
    const { state } = await trainedState();
    const rl = transformer({ valueHead: true });
    const adam = await decode(state, rl);
    if (!adam.ok) throw new Error(adam.error);
    const head = rl.weights.valueHead?.weight as tf.Variable;
    const before = Array.from(head.dataSync());
    const grads = tf.tidy(() =>
      tf.variableGrads(() => tf.mean(rl.values(tf.tensor2d([IDS], undefined, "int32"))), [head]),
    );
    adam.value.applyGradients(grads.grads);
    expect(Array.from(head.dataSync())).not.toEqual(before);
    expect(adam.value.iterations).toBe(2);
    tf.dispose([grads.value, ...Object.values(grads.grads)]);
  });

  it("refuses state for a variable the model lacks, of another shape, or with a moment missing", async () => {
    const { state } = await trainedState();
    const shallow = await decode(state, transformer({ valueHead: false, nLayers: 1 }));
    expect(shallow.ok ? "" : shallow.error).toContain(
      "state for model.layers.1.input_layernorm.weight, which the model does not have",
    );
    const wide = await decode(state, transformer({ valueHead: false, dFf: 32 }));
    expect(wide.ok ? "" : wide.error).toContain(
      "moments of model.layers.0.mlp.gate_proj.weight have shape [16,24], the variable [16,32]",
    );
    state.tensors.delete("v/model.norm.weight");
    const gap = await decode(state, transformer({ valueHead: false }));
    expect(gap.ok ? "" : gap.error).toContain("no m/model.norm.weight and v/model.norm.weight");
  });

  it("refuses the old positional format and a malformed optimizer.json", async () => {
    const { model, state } = await trainedState();
    const old = await decodeOptimizerState(
      { type: "adam", moments: 20, learningRate: 0.01, beta1: 0.9, beta2: 0.999, epsilon: 1e-8 },
      state.tensors,
      model.weights,
    );
    expect(old.ok ? "" : old.error).toContain("by position");
    const sgd = await decodeOptimizerState({ ...state.file, type: "sgd" }, state.tensors, model.weights);
    expect(sgd.ok ? "" : sgd.error).toMatch(/^optimizer\.json: /);
  });

  it("saveCheckpoint refuses an optimizer that holds another model's state, writing nothing", async () => {
    const { model: trained } = await trainedState();
    const other = transformer({ valueHead: false });
    const adam = createAdam({ learningRate: 1e-2 });
    await sftStep(PolicyPool.of({ policy: trained }), adam, BATCH);
    const saved = await saveCheckpoint(join(dir, "mixed"), {
      model: other,
      tokenizer: new ByteTokenizer(),
      optimizer: adam,
      meta: { step: 1 },
    });
    expect(saved.ok ? "" : saved.error).toMatch(
      /^the optimizer holds state for variable ".+", which is not one/,
    );
    await expect(readFile(join(dir, "mixed", "config.json"))).rejects.toThrow();
  });

  it("loadCheckpoint loads without optimizer files and reports a broken optimizer.json", async () => {
    const { model } = await trainedState();
    const plain = join(dir, "plain");
    await saveCheckpoint(plain, { model, tokenizer: new ByteTokenizer(), meta: { step: 0 } });
    const loaded = await loadCheckpoint(plain);
    if (!loaded.ok) throw new Error(loaded.error);
    expect(loaded.value.optimizer).toBeUndefined();
    await writeFile(join(plain, "optimizer.json"), "{ not json");
    const broken = await loadCheckpoint(plain);
    expect(broken.ok ? "" : broken.error).toContain("optimizer.json");
  });
});
