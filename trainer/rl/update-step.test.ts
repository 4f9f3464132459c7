import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { createModel } from "../model/create-model.js";
import { accumulate } from "../model/passes.js";
import type { PolicyModel } from "../model/types.js";
import { resolveTask, shardGradients } from "../parallel/shard-task.js";
import { stepRecord, trajectory } from "../testing/rollout-fixtures.js";
import { useCpu } from "../testing/test-backend.js";
import { buildBatch } from "./batch.js";
import { TrainConfig } from "./config.js";
import { scoreBatch } from "./score.js";
import { computeTargets } from "./targets.js";
import { lossSettings, minibatchPasses, passGradients, rlPassLoss, rlPassTask } from "./update-step.js";

beforeAll(useCpu);

function model(): PolicyModel {
  const m = createModel(
    {
      vocabSize: 64,
      dModel: 16,
      nLayers: 1,
      nHeads: 2,
      nKvHeads: 2,
      dFf: 32,
      contextLength: 64,
      valueHead: true,
    },
    { seed: 3 },
  );
  if (!m.ok) throw new Error(m.error);
  return m.value;
}

/** PPO's passes over four one-step episodes (two groups), one row per pass. */
function ppoPasses(m: PolicyModel) {
  const episodes = [0, 1, 2, 3].map((e) =>
    trajectory([
      stepRecord({ episode: e, group: e >> 1, responseIds: [4, 5 + e], reward: e % 2, done: true }),
    ]),
  );
  const batch = buildBatch(episodes, 0);
  const cfg = TrainConfig.parse({ algorithm: "ppo", entropyCoef: 0.01 });
  const scores = scoreBatch(batch, { model: m, values: true, passElements: 1 });
  const targets = computeTargets(batch, scores, cfg, "gae");
  const loss = lossSettings(cfg, true);
  return minibatchPasses({ batch, scores, targets }, [0, 1, 2, 3], loss, m.config, 1);
}

const values = (grads: tf.NamedTensorMap) =>
  Object.fromEntries(Object.entries(grads).map(([k, g]) => [k, Array.from(g.dataSync())]));

describe("one pass of the update step", () => {
  it("takes its input as plain data: a structured clone (as a worker thread gets it) gives the same gradient", () => {
    const m = model();
    const passes = ppoPasses(m);
    // A budget of 1 element puts each of the 4 rows in a pass of its own.
    expect(passes).toHaveLength(4);
    const pass = passes[0];
    if (!pass) throw new Error("no pass");
    const here = passGradients(m, pass);
    const there = passGradients(m, structuredClone(pass));
    expect(values(there.grads)).toEqual(values(here.grads));
    expect(there.metrics).toEqual(here.metrics);
    expect(Object.keys(here.metrics)).toEqual([
      "losses/policy",
      "losses/clipfrac",
      "losses/dual_clipfrac",
      "losses/approx_kl",
      "losses/entropy",
      "losses/value",
    ]);
    m.dispose();
  });

  it("leaves only its gradients behind (the metric scalars read after the tape are freed)", () => {
    const m = model();
    const pass = ppoPasses(m)[1];
    if (!pass) throw new Error("no pass");
    const before = tf.memory().numTensors;
    const { grads } = passGradients(m, pass);
    expect(tf.memory().numTensors - before).toBe(Object.keys(grads).length);
    tf.dispose(Object.values(grads));
    m.dispose();
  });

  it("is a task worker threads find by name, and their summed gradient is the step's", async () => {
    expect((await resolveTask(rlPassTask)).loss).toBe(rlPassLoss);
    const m = model();
    const passes = ppoPasses(m);
    const grads: tf.NamedTensorMap = {};
    const metrics: Record<string, number> = {};
    for (const pass of passes) {
      const out = passGradients(m, pass);
      accumulate(grads, out.grads);
      for (const [k, v] of Object.entries(out.metrics)) metrics[k] = (metrics[k] ?? 0) + v;
    }
    const shard = shardGradients({ policy: m }, rlPassTask.loss, passes);
    const byName = m.trainableVariables.map((v) => grads[v.name]);
    shard.grads.forEach((g, i) => {
      expect(g && Array.from(g.dataSync())).toEqual(byName[i] && Array.from(byName[i].dataSync()));
    });
    expect(shard.notes).toEqual(metrics);
    m.dispose();
  });
});
