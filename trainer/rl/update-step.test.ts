import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { createModel } from "../model/create-model.js";
import { accumulate } from "../model/passes.js";
import type { PolicyModel } from "../model/types.js";
import { PolicyPool } from "../parallel/policy-pool.js";
import { resolveTask, shardGradients } from "../parallel/shard-task.js";
import { stepRecord, trajectory } from "../testing/rollout-fixtures.js";
import { useCpu } from "../testing/test-backend.js";
import { buildBatch } from "./batch.js";
import { TrainConfig } from "./config.js";
import { scoreRows } from "./score.js";
import { computeTargets } from "./targets.js";
import {
  applyGradients,
  lossSettings,
  minibatchShards,
  type RlPassInput,
  rlPassLoss,
  rlPassTask,
} from "./update-step.js";

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

/** PPO's passes over four one-step episodes (two groups), one row per pass, on one thread. */
async function ppoPasses(m: PolicyModel) {
  const episodes = [0, 1, 2, 3].map((e) =>
    trajectory([
      stepRecord({ episode: e, group: e >> 1, responseIds: [4, 5 + e], reward: e % 2, done: true }),
    ]),
  );
  const batch = buildBatch(episodes, 0);
  const cfg = TrainConfig.parse({ algorithm: "ppo", entropyCoef: 0.01 });
  const scores = await scoreRows(PolicyPool.of({ policy: m }), batch, {
    values: true,
    reference: false,
    budget: 1,
  });
  const targets = await computeTargets(batch, scores, cfg, "gae");
  const loss = lossSettings(cfg, true);
  return minibatchShards({ batch, scores, targets }, [0, 1, 2, 3], loss, m.config, 1, 1).flat();
}

/** One pass's gradient by variable name and its weighted metrics, as a thread computes them. */
async function passGradients(m: PolicyModel, pass: RlPassInput) {
  const out = await shardGradients({ policy: m }, rlPassLoss, [pass]);
  const grads: tf.NamedTensorMap = {};
  m.trainableVariables.forEach((v, i) => {
    const g = out.grads[i];
    if (g) grads[v.name] = g;
  });
  return { grads, metrics: out.notes };
}

const values = (grads: tf.NamedTensorMap) =>
  Object.fromEntries(Object.entries(grads).map(([k, g]) => [k, Array.from(g.dataSync())]));

describe("one pass of the update step", () => {
  it("takes its input as plain data: a structured clone (as a worker thread gets it) gives the same gradient", async () => {
    const m = model();
    const passes = await ppoPasses(m);
    // A budget of 1 element puts each of the 4 rows in a pass of its own.
    expect(passes).toHaveLength(4);
    const pass = passes[0];
    if (!pass) throw new Error("no pass");
    const here = await passGradients(m, pass);
    const there = await passGradients(m, structuredClone(pass));
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

  it("leaves only its gradients behind (the metric scalars read after the tape are freed)", async () => {
    const m = model();
    const pass = (await ppoPasses(m))[1];
    if (!pass) throw new Error("no pass");
    const before = tf.memory().numTensors;
    const { grads } = await passGradients(m, pass);
    expect(tf.memory().numTensors - before).toBe(Object.keys(grads).length);
    tf.dispose(Object.values(grads));
    m.dispose();
  });

  it("is a task worker threads find by name, and their summed gradient is the step's", async () => {
    expect((await resolveTask(rlPassTask)).loss).toBe(rlPassLoss);
    const m = model();
    const passes = await ppoPasses(m);
    const grads: tf.NamedTensorMap = {};
    const metrics: Record<string, number> = {};
    for (const pass of passes) {
      const out = await passGradients(m, pass);
      accumulate(grads, out.grads);
      for (const [k, v] of Object.entries(out.metrics)) metrics[k] = (metrics[k] ?? 0) + v;
    }
    const shard = await shardGradients({ policy: m }, rlPassTask.loss, passes);
    const byName = m.trainableVariables.map((v) => grads[v.name]);
    shard.grads.forEach((g, i) => {
      expect(g && Array.from(g.dataSync())).toEqual(byName[i] && Array.from(byName[i].dataSync()));
    });
    expect(shard.notes).toEqual(metrics);
    m.dispose();
  });
});

describe("a detached value head", () => {
  it("takes the value loss's gradient alone: the trunk gets none, the head the same as when shared", async () => {
    const m = model();
    const first = (await ppoPasses(m))[0];
    if (!first) throw new Error("no pass");
    // Zero advantages and no entropy bonus leave the value loss as the only term with a gradient.
    const pass = {
      ...first,
      advantages: first.advantages.map((row) => row.map(() => 0)),
      loss: { ...first.loss, entropyCoef: 0 },
    };
    const shared = values(
      (await passGradients(m, { ...pass, loss: { ...pass.loss, valueTrunk: "shared" } })).grads,
    );
    const detached = values(
      (await passGradients(m, { ...pass, loss: { ...pass.loss, valueTrunk: "detached" } })).grads,
    );
    const head = new Set(m.valueVariables.map((v) => v.name));
    expect(head.size).toBe(2);
    const norm = (g: number[] | undefined) => Math.hypot(...(g ?? []));
    let sharedTrunk = 0;
    for (const v of m.trainableVariables) {
      if (head.has(v.name)) {
        expect(norm(detached[v.name])).toBeGreaterThan(0);
        expect(detached[v.name]).toEqual(shared[v.name]);
      } else {
        expect((detached[v.name] ?? []).every((x) => x === 0)).toBe(true);
        sharedTrunk += norm(shared[v.name]) ** 2;
      }
    }
    expect(sharedTrunk).toBeGreaterThan(0);
    m.dispose();
  });

  it("is clipped apart: each group is scaled to the bound by its own norm", async () => {
    const a = tf.variable(tf.tensor1d([1, 1]), true, "a");
    const b = tf.variable(tf.tensor1d([1, 1]), true, "b");
    const step = async (apart: Set<string>) => {
      a.assign(tf.tensor1d([1, 1]));
      b.assign(tf.tensor1d([1, 1]));
      // ‖g_a‖ = √(3² + 4²) = 5 and ‖g_b‖ = 12; together √(25 + 144) = 13.
      const grads = { a: tf.tensor1d([3, 4]), b: tf.tensor1d([0, 12]) };
      const norms = await applyGradients(tf.train.sgd(1), grads, 1, apart);
      return { norms, a: Array.from(a.dataSync()), b: Array.from(b.dataSync()) };
    };
    const close = (got: number[], want: number[]) => {
      expect(got).toHaveLength(want.length);
      got.forEach((x, i) => {
        expect(x).toBeCloseTo(want[i] ?? Number.NaN, 5);
      });
    };
    // One group: both scaled by 1/13, so a moves by (3, 4)/13 and b by (0, 12)/13.
    const joint = await step(new Set());
    expect(joint.norms).toEqual({ norm: expect.closeTo(13, 5) });
    close(joint.a, [1 - 3 / 13, 1 - 4 / 13]);
    close(joint.b, [1, 1 - 12 / 13]);
    // b apart: a scaled by 1/5, moving by (0.6, 0.8); b by 1/12, moving by (0, 1).
    const split = await step(new Set(["b"]));
    expect(split.norms).toEqual({ norm: expect.closeTo(5, 5), apartNorm: expect.closeTo(12, 5) });
    close(split.a, [0.4, 0.2]);
    close(split.b, [1, 0]);
    tf.dispose([a, b]);
  });
});
