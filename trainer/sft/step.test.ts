import * as tf from "@tensorflow/tfjs-core";
import { describe, expect, it } from "vitest";
import { initBackend } from "../backend/backend.js";
import type { BackendName } from "../backend/names.js";
import { createModel } from "../model/create-model.js";
import type { PolicyModel } from "../model/types.js";
import { createAdam } from "../optim/optimizer-step.js";
import { PolicyPool } from "../parallel/policy-pool.js";
import { maskedNll, sftStep } from "./step.js";

const TINY = { vocabSize: 32, dModel: 32, nLayers: 2, nHeads: 4, nKvHeads: 2, dFf: 48, contextLength: 16 };

function tiny(): PolicyModel {
  const made = createModel(TINY, { seed: 5 });
  if (!made.ok) throw new Error(made.error);
  return made.value;
}

// Two rows: positions 0–2 are prompt/observation (mask 0), 3–5 the assistant's tokens; row 2 is padded.
const BATCH = {
  ids: [
    [1, 2, 3, 4, 5, 6],
    [7, 8, 9, 10, 11, 0],
  ],
  targets: [
    [2, 3, 4, 5, 6, 7],
    [8, 9, 10, 11, 12, 0],
  ],
  mask: [
    [0, 0, 1, 1, 1, 1],
    [0, 0, 1, 1, 1, 0],
  ],
};

async function use(backend: BackendName) {
  const ready = await initBackend(backend);
  if (!ready.ok) throw new Error(ready.error);
}

describe.each(["wasm", "cpu"] as const)("SFT step on %s", (backend) => {
  it("lowers the loss with finite gradients", async () => {
    await use(backend);
    expect(tf.getBackend()).toBe(backend);
    const model = tiny();
    const adam = createAdam({ learningRate: 1e-2 });
    const pool = PolicyPool.of({ policy: model });
    const first = await sftStep(pool, adam, BATCH, { maxGradNorm: 1 });
    expect(Number.isFinite(first.gradNorm) && first.gradNorm > 0).toBe(true);
    // Σ mask = 4 + 3.
    expect(first.tokens).toBe(7);
    let last = first;
    for (let i = 0; i < 4; i++) last = await sftStep(pool, adam, BATCH, { maxGradNorm: 1 });
    expect(last.loss).toBeLessThan(first.loss - 0.1);
    model.dispose();
    adam.dispose();
  });
});

describe("SFT step on a model with a value head", () => {
  it("trains the policy and leaves the head, which the loss never reaches, unchanged", async () => {
    await use("wasm");
    const made = createModel({ ...TINY, valueHead: true }, { seed: 5 });
    if (!made.ok) throw new Error(made.error);
    const model = made.value;
    const head = model.trainableVariables.slice(-2);
    const before = head.map((v) => Array.from(v.dataSync()));
    const embed = Array.from((model.trainableVariables[0] as tf.Variable).dataSync());
    const adam = createAdam({ learningRate: 1e-2 });
    // Both the clipped (scaled) and unclipped gradient paths.
    const pool = PolicyPool.of({ policy: model });
    const clipped = await sftStep(pool, adam, BATCH, { maxGradNorm: 1e-3 });
    const plain = await sftStep(pool, adam, BATCH);
    expect(clipped.gradNorm).toBeGreaterThan(1e-3);
    expect(Number.isFinite(plain.loss)).toBe(true);
    expect(head.map((v) => Array.from(v.dataSync()))).toEqual(before);
    expect(Array.from((model.trainableVariables[0] as tf.Variable).dataSync())).not.toEqual(embed);
    model.dispose();
    adam.dispose();
  });
});

describe("loss mask", () => {
  it("gives zero gradient at observation positions", async () => {
    await use("cpu");
    const model = tiny();
    const ids = tf.tensor2d(BATCH.ids, undefined, "int32");
    const targets = tf.tensor2d(BATCH.targets, undefined, "int32");
    const mask = tf.tensor2d(BATCH.mask);
    const logprobs = model.logprobsOf(ids, targets);
    const grad = tf
      .grad((lp: tf.Tensor) => maskedNll(lp as tf.Tensor2D, mask))(logprobs)
      .arraySync() as number[][];
    // dL/dlogp[b,t] = −m[b,t] / Σm = −1/7 where trained, exactly 0 elsewhere.
    grad.forEach((row, b) => {
      row.forEach((g, t) => {
        if (BATCH.mask[b]?.[t] === 1) expect(g).toBeCloseTo(-1 / 7, 6);
        else expect(Math.abs(g)).toBe(0);
      });
    });
    model.dispose();
  });

  it("leaves the weight gradient unchanged whatever the observation tokens' targets are", async () => {
    await use("cpu");
    const model = tiny();
    const gradsFor = (targets: number[][]) =>
      tf.tidy(() => {
        const ids = tf.tensor2d(BATCH.ids, undefined, "int32");
        const t = tf.tensor2d(targets, undefined, "int32");
        const mask = tf.tensor2d(BATCH.mask);
        const { grads } = tf.variableGrads(
          () => maskedNll(model.logprobsOf(ids, t), mask),
          model.trainableVariables as tf.Variable[],
        );
        return Object.values(grads).flatMap((g) => Array.from(g.dataSync()));
      });
    const original = gradsFor(BATCH.targets);
    // Change only the targets where mask = 0.
    const changed = BATCH.targets.map((row, b) =>
      row.map((x, t) => (BATCH.mask[b]?.[t] ? x : (x + 13) % 32)),
    );
    expect(gradsFor(changed)).toEqual(original);
    // A change at a trained position does move the gradient (the check above can fail).
    const trained = BATCH.targets.map((row, b) =>
      row.map((x, t) => (b === 0 && t === 3 ? (x + 13) % 32 : x)),
    );
    expect(gradsFor(trained)).not.toEqual(original);
    model.dispose();
  });
});

describe("SFT step in passes (wasm, whose heap is capped at 4 GiB)", () => {
  const LONG = { ...TINY, vocabSize: 64, contextLength: 512 };
  const model = () => {
    const made = createModel(LONG, { seed: 7 });
    if (!made.ok) throw new Error(made.error);
    return made.value;
  };
  /** Row r: `length` ids, the last `learn` of them trained; right-padded with 0 to `width`. */
  const rows = (specs: readonly (readonly [number, number])[], width: number) => {
    const id = (r: number, t: number) => 1 + ((r * 11 + t * 7) % 60);
    return {
      ids: specs.map(([len], r) => Array.from({ length: width }, (_, t) => (t < len ? id(r, t) : 0))),
      targets: specs.map(([len], r) => Array.from({ length: width }, (_, t) => (t < len ? id(r, t + 1) : 0))),
      mask: specs.map(([len, learn]) =>
        Array.from({ length: width }, (_, t) => (t < len && t >= len - learn ? 1 : 0)),
      ),
    };
  };
  const weights = (m: PolicyModel) => m.trainableVariables.map((v) => Array.from(v.dataSync()));

  it("gives the one-pass loss and update when every row runs in a pass of its own", async () => {
    await use("wasm");
    // Lengths 6, 20, 11 and a row that trains nothing; learned tokens 3 + 5 + 4 + 0 = 12.
    const batch = rows(
      [
        [6, 3],
        [20, 5],
        [11, 4],
        [9, 0],
      ],
      20,
    );
    const run = async (passElements: number) => {
      const m = model();
      const before = weights(m);
      const out = await sftStep(PolicyPool.of({ policy: m }), tf.train.sgd(1), batch, { passElements });
      const delta = weights(m).map((w, i) => w.map((x, j) => x - (before[i]?.[j] ?? 0)));
      m.dispose();
      return { out, delta };
    };
    const one = await run(Number.POSITIVE_INFINITY);
    // A budget of 1 element: each live row is its own pass (3 passes, the empty row skipped).
    const split = await run(1);
    expect(split.out.tokens).toBe(12);
    expect(split.out.loss).toBeCloseTo(one.out.loss, 5);
    expect(split.out.gradNorm).toBeCloseTo(one.out.gradNorm, 4);
    const flat = (d: number[][]) => d.flat();
    const a = flat(split.delta);
    const b = flat(one.delta);
    expect(Math.max(...b.map(Math.abs))).toBeGreaterThan(1e-4);
    expect(Math.max(...a.map((x, i) => Math.abs(x - (b[i] as number))))).toBeLessThan(1e-5);
  });

  it("holds peak memory near one pass's, however many long rows the batch has", async () => {
    await use("wasm");
    const peak = async (n: number) => {
      const m = model();
      const batch = rows(
        Array.from({ length: n }, () => [400, 100] as const),
        400,
      );
      const base = tf.memory().numBytes;
      // Budget: 2 rows of width 400.
      const info = await tf.profile(async () => {
        await sftStep(PolicyPool.of({ policy: m }), tf.train.sgd(0.1), batch, {
          passElements: 2 * 400 * (2 * 4 * 400 + 2 * 64),
        });
      });
      m.dispose();
      return info.peakBytes - base;
    };
    const two = await peak(2);
    const sixteen = await peak(16);
    // One pass over all 16 rows would hold 8× the attention activations of a 2-row pass.
    expect(sixteen).toBeLessThan(1.5 * two);
  });
});
