import * as tf from "@tensorflow/tfjs-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mixSeed } from "../../shared/random.js";
import { initBackend } from "../backend/backend.js";
import { createModel } from "../model/create-model.js";
import type { PolicyModel, SampleOptions } from "../model/types.js";
import { createAdam } from "../optim/optimizer-step.js";
import { scoreRows } from "../rl/score.js";
import { maskedNll, type SftBatch, sftPassLoss, sftShards, sftStep } from "../sft/step.js";
import { failsOnWorkers } from "../testing/worker-only-failure.js";
import { PolicyPool } from "./policy-pool.js";
import { shardGradients } from "./shard-task.js";
import { readWeights } from "./weight-sync.js";

const TINY = { vocabSize: 32, dModel: 32, nLayers: 2, nHeads: 4, nKvHeads: 2, dFf: 48, contextLength: 48 };

function tiny(seed: number): PolicyModel {
  const made = createModel({ ...TINY, valueHead: true }, { seed });
  if (!made.ok) throw new Error(made.error);
  return made.value;
}

// Six prompts of different lengths, two of them repeated (a GRPO group shares its prompt).
const PROMPTS = [
  [1, 2, 3],
  [4, 5, 6, 7, 8],
  [1, 2, 3],
  [9, 10],
  [11, 12, 13, 14, 15, 16, 17],
  [9, 10],
];
const OPTS: SampleOptions = { maxNewTokens: 12, temperature: 1, topP: 1, stopIds: [31], seed: 7 };

// Rows of different lengths, learned tokens (mask 1) after a prompt, padding after the row's end.
const BATCH: SftBatch = {
  ids: [
    [1, 2, 3, 4, 5, 6, 0, 0],
    [7, 8, 9, 10, 11, 0, 0, 0],
    [12, 13, 14, 15, 16, 17, 18, 19],
    [20, 21, 22, 0, 0, 0, 0, 0],
  ],
  targets: [
    [2, 3, 4, 5, 6, 7, 0, 0],
    [8, 9, 10, 11, 12, 0, 0, 0],
    [13, 14, 15, 16, 17, 18, 19, 20],
    [21, 22, 23, 0, 0, 0, 0, 0],
  ],
  mask: [
    [0, 0, 1, 1, 1, 1, 0, 0],
    [0, 0, 1, 1, 1, 0, 0, 0],
    [0, 0, 0, 1, 1, 1, 1, 1],
    [0, 1, 1, 0, 0, 0, 0, 0],
  ],
};

function expectAllClose(a: readonly Float32Array[], b: readonly Float32Array[], tolerance: number) {
  expect(a.length).toBe(b.length);
  let worst = 0;
  a.forEach((x, i) => {
    x.forEach((v, j) => {
      worst = Math.max(worst, Math.abs(v - ((b[i] as Float32Array)[j] as number)));
    });
  });
  expect(worst).toBeLessThanOrEqual(tolerance);
}

describe("PolicyPool on wasm: two threads give the pool of one's results", () => {
  let model: PolicyModel;
  let reference: PolicyModel;
  let pool: PolicyPool;

  beforeAll(async () => {
    const ready = await initBackend("wasm");
    if (!ready.ok) throw new Error(ready.error);
    model = tiny(11);
    reference = tiny(12);
    pool = await PolicyPool.start(2, "wasm", { policy: model, reference });
  }, 60_000);

  afterAll(async () => {
    await pool?.close();
    model?.dispose();
    reference?.dispose();
  });

  it("samples the same tokens for a seed, each row from its own stream", async () => {
    expect(pool.size).toBe(2);
    const alone = await model.sample(PROMPTS, OPTS);
    const split = await pool.sample(PROMPTS, OPTS);
    expect(split.tokens).toEqual(alone.tokens);
    expect(split.finished).toEqual(alone.finished);
    split.logprobs.forEach((row, r) => {
      row.forEach((lp, t) => {
        expect(lp).toBeCloseTo(alone.logprobs[r]?.[t] as number, 5);
      });
    });
    // A row alone, given its stream, draws what it drew in the batch.
    const row4 = await model.sample([PROMPTS[4] as number[]], { ...OPTS, rowSeeds: [mixSeed(OPTS.seed, 4)] });
    expect(row4.tokens[0]).toEqual(alone.tokens[4]);
    // The seed matters: another one draws other tokens.
    const other = await pool.sample(PROMPTS, { ...OPTS, seed: 8 });
    expect(other.tokens).not.toEqual(alone.tokens);
  });

  it("sums the shards' gradients to the one-thread gradient of the batch", async () => {
    const shards = sftShards(pool, BATCH);
    expect(shards).toHaveLength(2);
    const split = await pool.gradients(sftPassLoss, shards);
    const whole = await shardGradients({ policy: model }, sftPassLoss.loss, shards.flat());
    const names = model.trainableVariables.map((v) => v.name);
    // The pool of one: one shard, whose gradient is the shard task's on this thread, bit for bit.
    const alone = PolicyPool.of({ policy: model });
    const own = sftShards(alone, BATCH);
    expect(own).toHaveLength(1);
    const local = await alone.gradients(sftPassLoss, own);
    const direct = await shardGradients({ policy: model }, sftPassLoss.loss, own[0] ?? []);
    model.trainableVariables.forEach((v, i) => {
      const g = direct.grads[i];
      expect(local.grads[v.name] && Array.from(local.grads[v.name]?.dataSync() ?? [])).toEqual(
        g ? Array.from(g.dataSync()) : undefined,
      );
    });
    expect(local.notes).toEqual(direct.notes);
    expectAllClose(
      names.flatMap((n) => (n in split.grads ? [split.grads[n]?.dataSync() as Float32Array] : [])),
      names.flatMap((n) => (n in local.grads ? [local.grads[n]?.dataSync() as Float32Array] : [])),
      1e-5,
    );
    tf.dispose([...Object.values(local.grads), ...direct.grads.filter((g): g is tf.Tensor => g !== null)]);
    // The value head takes no part in the SFT loss, so neither way gives it a gradient.
    const reached = names.filter((n, i) => whole.grads[i] !== null && n in split.grads);
    expect(reached).toHaveLength(names.length - 2);
    expectAllClose(
      reached.map((n) => split.grads[n]?.dataSync() as Float32Array),
      reached.map((n) => whole.grads[names.indexOf(n)]?.dataSync() as Float32Array),
      1e-5,
    );
    expect(split.notes.loss).toBeCloseTo(whole.notes.loss as number, 5);
    // Each pass weighted by its share of the 4 + 3 + 5 + 2 = 14 learned tokens: the sum is the batch's
    // token mean, as one pass over the whole batch computes it.
    const onePass = tf.tidy(
      () =>
        maskedNll(
          model.logprobsOf(
            tf.tensor2d(BATCH.ids, undefined, "int32"),
            tf.tensor2d(BATCH.targets, undefined, "int32"),
          ),
          tf.tensor2d(BATCH.mask),
        ).dataSync()[0],
    );
    expect(split.notes.loss).toBeCloseTo(onePass as number, 5);
    tf.dispose([...Object.values(split.grads), ...whole.grads.filter((g): g is tf.Tensor => g !== null)]);
  });

  it("takes the same optimizer step and sends the new weights before sampling again", async () => {
    const twin = tiny(11);
    expectAllClose(await readWeights(twin), await readWeights(model), 0);
    const one = await sftStep(PolicyPool.of({ policy: twin }), createAdam({ learningRate: 0.01 }), BATCH, {
      maxGradNorm: 1,
    });
    const two = await sftStep(pool, createAdam({ learningRate: 0.01 }), BATCH, { maxGradNorm: 1 });
    expect(two.tokens).toBe(one.tokens);
    expect(two.loss).toBeCloseTo(one.loss, 5);
    expect(two.gradNorm).toBeCloseTo(one.gradNorm, 5);
    expectAllClose(await readWeights(model), await readWeights(twin), 1e-5);
    const alone = await twin.sample(PROMPTS, OPTS);
    const split = await pool.sample(PROMPTS, OPTS);
    expect(split.tokens).toEqual(alone.tokens);
    twin.dispose();
  });

  it("scores rows as one pass over the batch does: logprobs, values and the reference's logprobs", async () => {
    const lengths = BATCH.mask.map((m) => m.lastIndexOf(1) + 1);
    const batch = { ids: BATCH.ids, targets: BATCH.targets, lengths, width: 8 };
    const opts = { values: true, reference: true, budget: 2 ** 25 };
    const split = await scoreRows(pool, batch, opts);
    const alone = await scoreRows(PolicyPool.of({ policy: model, reference }), batch, opts);
    const ids = tf.tensor2d(BATCH.ids, undefined, "int32");
    const targets = tf.tensor2d(BATCH.targets, undefined, "int32");
    const ev = model.evaluate(ids, targets, { values: true });
    const ref = reference.logprobsOf(ids, targets);
    // Before a row's length, the one-pass results; past it, padding that no loss reads.
    const cut = (m: number[][]) => m.map((row, r) => row.map((x, t) => (t < (lengths[r] as number) ? x : 0)));
    for (const got of [split, alone]) {
      const pairs: [number[][] | undefined, number[][]][] = [
        [got.logprobs, cut(ev.logprobs.arraySync())],
        [got.values, cut(ev.values?.arraySync() ?? [])],
        [got.refLogprobs, cut(ref.arraySync())],
      ];
      for (const [a, b] of pairs)
        expectAllClose(
          cut(a ?? []).map((r) => Float32Array.from(r)),
          b.map((r) => Float32Array.from(r)),
          1e-5,
        );
    }
    tf.dispose([ids, targets, ev.logprobs, ev.values as tf.Tensor, ref]);
  });

  it("rejects with a worker's error, and the worker serves the next call", async () => {
    await expect(pool.forward(failsOnWorkers, [1, 2])).rejects.toThrow(
      /policy worker: .*shard 2 failed on purpose/s,
    );
    const again = await pool.sample(PROMPTS, OPTS);
    expect(again.tokens).toEqual((await model.sample(PROMPTS, OPTS)).tokens);
  });
});

describe("the pool of one", () => {
  it("is what one worker starts: no thread, every shard task run on this one", async () => {
    const ready = await initBackend("wasm");
    if (!ready.ok) throw new Error(ready.error);
    const model = tiny(11);
    const pool = await PolicyPool.start(1, "wasm", { policy: model });
    expect(pool.size).toBe(1);
    // The task throws on any worker thread, so its answer shows where it ran.
    expect(await pool.forward(failsOnWorkers, [3])).toEqual([6]);
    await expect(pool.forward(failsOnWorkers, [1, 2])).rejects.toThrow(/2 shards for 1 threads/);
    // Sampling through the pool is the model's own sampling.
    expect((await pool.sample(PROMPTS, OPTS)).tokens).toEqual((await model.sample(PROMPTS, OPTS)).tokens);
    await pool.close();
    model.dispose();
  });
});
