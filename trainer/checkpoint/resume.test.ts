import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../backend/backend.js";
import { createModel } from "../model/create-model.js";
import type { PolicyModel } from "../model/types.js";
import { createAdam } from "../optim/optimizer-step.js";
import { maskedNll } from "../sft/step.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import { loadCheckpoint, saveCheckpoint } from "./checkpoint.js";

let dir = "";
beforeAll(async () => {
  const ready = await initBackend("cpu");
  if (!ready.ok) throw new Error(ready.error);
  dir = await mkdtemp(join(tmpdir(), "edgegym-resume-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const SHAPE = { dModel: 16, nLayers: 2, nHeads: 2, nKvHeads: 1, dFf: 24, contextLength: 16 };
const IDS = [257, 260, 104, 105, 263, 261, 111, 107];
const BATCH = { ids: [IDS.slice(0, -1)], targets: [IDS.slice(1)], mask: [[0, 0, 0, 1, 1, 1, 1]] };

/**
 * One Adam step with the gradients handed over as `variableGrads` returns them (a name → gradient
 * map, as the SFT and RL loops do) or as a list in reverse variable order.
 */
function step(model: PolicyModel, optimizer: tf.Optimizer, as: "map" | "reversed list"): void {
  const { value, grads } = tf.tidy(() =>
    tf.variableGrads(
      () =>
        maskedNll(
          model.logprobsOf(
            tf.tensor2d(BATCH.ids, undefined, "int32"),
            tf.tensor2d(BATCH.targets, undefined, "int32"),
          ),
          tf.tensor2d(BATCH.mask),
        ),
      model.trainableVariables as tf.Variable[],
    ),
  );
  optimizer.applyGradients(
    as === "map"
      ? grads
      : Object.entries(grads)
          .reverse()
          .map(([name, tensor]) => ({ name, tensor })),
  );
  tf.dispose([value, ...Object.values(grads)]);
}

const logits = (m: PolicyModel) =>
  tf.tidy(() => Array.from(m.logits(tf.tensor2d([IDS], undefined, "int32")).dataSync()));
const weights = (m: PolicyModel) => m.trainableVariables.map((v) => Array.from(v.dataSync()));

describe("resuming from a checkpoint with Adam state", () => {
  it("K + M steps in one go equal K steps, save, load into variables made in another order, M steps", async () => {
    const [K, M] = [3, 2];
    const model = (shape: object) => {
      const made = createModel({ ...SHAPE, ...shape }, { seed: 5 });
      if (!made.ok) throw new Error(made.error);
      return made.value;
    };
    const straight = model({});
    const straightAdam = createAdam({ learningRate: 1e-2 });
    for (let i = 0; i < K + M; i++) step(straight, straightAdam, "map");

    const first = model({});
    const adam = createAdam({ learningRate: 1e-2 });
    for (let i = 0; i < K; i++) step(first, adam, "map");
    const saved = await saveCheckpoint(join(dir, "k"), {
      model: first,
      tokenizer: new ByteTokenizer(),
      optimizer: adam,
      meta: { step: K },
    });
    expect(saved.ok ? "ok" : saved.error).toBe("ok");
    // A process that already made other variables: the loaded model's engine names differ, and the
    // loader creates them layer by layer (embedding last), not in `trainableVariables` order.
    const other = model({ nLayers: 1 });
    const loaded = await loadCheckpoint(join(dir, "k"));
    if (!loaded.ok) throw new Error(loaded.error);
    const resumed = loaded.value;
    expect(resumed.optimizer?.iterations).toBe(K);
    for (let i = 0; i < M; i++)
      step(resumed.model, resumed.optimizer as tf.Optimizer, i === 0 ? "reversed list" : "map");

    expect(weights(resumed.model)).toEqual(weights(straight));
    expect(logits(resumed.model)).toEqual(logits(straight));
    // The comparison has teeth: a fresh Adam instead of the saved moments lands elsewhere.
    const again = await loadCheckpoint(join(dir, "k"));
    if (!again.ok) throw new Error(again.error);
    const freshAdam = createAdam({ learningRate: 1e-2 });
    for (let i = 0; i < M; i++) step(again.value.model, freshAdam, "map");
    expect(logits(again.value.model)).not.toEqual(logits(straight));
    for (const m of [straight, first, other, resumed.model, again.value.model]) m.dispose();
  });
});
