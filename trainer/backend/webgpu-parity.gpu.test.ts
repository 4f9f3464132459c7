import * as tf from "@tensorflow/tfjs-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createModel } from "../model/create-model.js";
import type { PolicyModel } from "../model/types.js";
import { createAdam } from "../optim/optimizer-step.js";
import { type LossSettings, type RlPassInput, rlPassLoss } from "../rl/update-step.js";
import { maskedNll, sftStep } from "../sft/sft-step.js";
import { initBackend } from "./backend.js";
import { startWebGpu } from "./webgpu.js";

/**
 * The webgpu backend against the cpu backend on the same model (same config, same seed, so the same
 * initial weights): `npm run test:gpu`, on whatever adapter Dawn finds (lavapipe on CI). Each case runs
 * its body once per backend and compares; the largest differences are printed as JSON for the record.
 * Tolerances: float32 sums in another order differ by a few ulps per term; 1e-5 absolute on values
 * of order 1 (logits, log-probabilities) and 1e-5 relative to the largest element on gradients is
 * ~100 ulps (Adam's updated weights: 1e-4, see there), far below what a wrong kernel gives (≥ 1e-2).
 */

const TINY = { vocabSize: 32, dModel: 32, nLayers: 2, nHeads: 4, nKvHeads: 2, dFf: 48, contextLength: 16 };
const IDS = [
  [1, 2, 3, 4, 5, 6],
  [7, 8, 9, 10, 11, 0],
];
const TARGETS = [
  [2, 3, 4, 5, 6, 7],
  [8, 9, 10, 11, 12, 0],
];
const MASK = [
  [0, 0, 1, 1, 1, 1],
  [0, 0, 1, 1, 1, 0],
];
const TOL = 1e-5;
const figures: Record<string, number> = {};

function tiny(): PolicyModel {
  const made = createModel(TINY, { seed: 5 });
  if (!made.ok) throw new Error(made.error);
  return made.value;
}

/** Runs `body` on cpu, then on webgpu; returns both results. */
async function onBoth<T>(body: () => Promise<T>): Promise<{ cpu: T; gpu: T }> {
  await use("cpu");
  const cpu = await body();
  await use("webgpu");
  const gpu = await body();
  return { cpu, gpu };
}

async function use(name: "cpu" | "webgpu"): Promise<void> {
  const ready = await initBackend(name);
  if (!ready.ok) throw new Error(ready.error);
  expect(tf.getBackend()).toBe(name);
}

/** The largest |a − b| over all elements, and the largest |a|. */
function gap(a: ArrayLike<number>, b: ArrayLike<number>): { diff: number; scale: number } {
  expect(a.length).toBe(b.length);
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < a.length; i++) {
    diff = Math.max(diff, Math.abs((a[i] as number) - (b[i] as number)));
    scale = Math.max(scale, Math.abs(a[i] as number));
  }
  return { diff, scale };
}

const flat = async (ts: readonly tf.Tensor[]) =>
  Float32Array.from((await Promise.all(ts.map((t) => t.data()))).flatMap((d) => [...d]));

describe("webgpu matches cpu", () => {
  beforeAll(async () => {
    const gpu = await startWebGpu({ allowSoftware: true });
    if (!gpu.ok) throw new Error(gpu.error);
    console.log(JSON.stringify({ webgpu_adapter: gpu.value }));
  });
  afterAll(() => {
    console.log(JSON.stringify({ webgpu_parity_max_abs_diff: figures }));
  });

  it("in the forward pass (logits)", async () => {
    const { cpu, gpu } = await onBoth(async () => {
      const model = tiny();
      const ids = tf.tensor2d(IDS, undefined, "int32");
      const out = await model.logits(ids).data();
      model.dispose();
      return out;
    });
    figures.logits = gap(cpu, gpu).diff;
    expect(figures.logits).toBeLessThan(TOL);
  });

  it("in log-probabilities and entropy", async () => {
    const { cpu, gpu } = await onBoth(async () => {
      const model = tiny();
      const ev = model.evaluate(
        tf.tensor2d(IDS, undefined, "int32"),
        tf.tensor2d(TARGETS, undefined, "int32"),
        {
          entropy: true,
        },
      );
      const out = { logprobs: await ev.logprobs.data(), entropy: await (ev.entropy as tf.Tensor).data() };
      model.dispose();
      return out;
    });
    figures.logprobs = gap(cpu.logprobs, gpu.logprobs).diff;
    figures.entropy = gap(cpu.entropy, gpu.entropy).diff;
    expect(figures.logprobs).toBeLessThan(TOL);
    expect(figures.entropy).toBeLessThan(TOL);
  });

  it("in every gradient element of the masked SFT loss", async () => {
    const { cpu, gpu } = await onBoth(async () => {
      const model = tiny();
      const { grads, value } = tf.variableGrads(
        () =>
          maskedNll(
            model.logprobsOf(tf.tensor2d(IDS, undefined, "int32"), tf.tensor2d(TARGETS, undefined, "int32")),
            tf.tensor2d(MASK),
          ),
        model.trainableVariables as tf.Variable[],
      );
      const out = {
        loss: (await value.data())[0] as number,
        grads: await flat(model.trainableVariables.map((v) => grads[v.name] as tf.Tensor)),
      };
      model.dispose();
      return out;
    });
    const g = gap(cpu.grads, gpu.grads);
    figures.gradient_elements = cpu.grads.length;
    figures.gradients_relative = g.diff / g.scale;
    expect(cpu.grads.length).toBeGreaterThan(10_000);
    expect(Math.abs(cpu.loss - gpu.loss)).toBeLessThan(TOL);
    expect(figures.gradients_relative).toBeLessThan(TOL);
  });

  it("in greedy and seeded top-p sampling (same tokens)", async () => {
    const { cpu, gpu } = await onBoth(async () => {
      const model = tiny();
      const prompts = [[1, 2, 3], [4, 5], [6]];
      const greedy = await model.sample(prompts, {
        maxNewTokens: 8,
        temperature: 0,
        topP: 1,
        stopIds: [],
        seed: 1,
      });
      const nucleus = await model.sample(prompts, {
        maxNewTokens: 8,
        temperature: 1,
        topP: 0.9,
        stopIds: [],
        seed: 3,
      });
      model.dispose();
      return { greedy: greedy.tokens, nucleus: nucleus.tokens };
    });
    expect(gpu.greedy).toEqual(cpu.greedy);
    expect(gpu.nucleus).toEqual(cpu.nucleus);
  });

  it("over three Adam steps on the SFT loss (losses and weights)", async () => {
    const { cpu, gpu } = await onBoth(async () => {
      const model = tiny();
      const adam = createAdam({ learningRate: 1e-2 });
      const losses: number[] = [];
      for (let step = 0; step < 3; step++) {
        const { grads, value } = tf.variableGrads(
          () =>
            maskedNll(
              model.logprobsOf(
                tf.tensor2d(IDS, undefined, "int32"),
                tf.tensor2d(TARGETS, undefined, "int32"),
              ),
              tf.tensor2d(MASK),
            ),
          model.trainableVariables as tf.Variable[],
        );
        losses.push((await value.data())[0] as number);
        adam.applyGradients(grads);
        tf.dispose([value, ...Object.values(grads)]);
      }
      const weights = await flat(model.trainableVariables);
      model.dispose();
      adam.dispose();
      return { losses, weights };
    });
    expect(gap(cpu.losses, gpu.losses).diff).toBeLessThan(TOL);
    expect(cpu.losses[2]).toBeLessThan(cpu.losses[0] as number);
    const w = gap(cpu.weights, gpu.weights);
    figures.adam_weights_relative = w.diff / w.scale;
    // Adam's m/√v turns the few-ulp gradient differences of elements near zero into differences of a
    // fraction of a step (lr 1e-2): 1e-4 of the largest weight is 1% of one step.
    expect(figures.adam_weights_relative).toBeLessThan(1e-4);
  });

  it("in the RL pass loss (PPO clip, KL, entropy) and its gradient", async () => {
    const loss: LossSettings = {
      policyLoss: "ppo",
      clipLow: 0.2,
      clipHigh: 0.28,
      dualClip: 3,
      aggregation: "token-mean",
      klCoef: 0.05,
      klMode: "loss",
      entropyCoef: 0.01,
      valueCoef: 0.5,
      valueClip: 0.2,
      valueTrunk: "shared",
      critic: false,
    };
    // Old and reference log-probabilities off the current ones, and advantages of both signs, so the
    // clip, the KL and the entropy terms all carry gradient.
    const input: RlPassInput = {
      ids: IDS,
      targets: TARGETS,
      mask: MASK,
      oldLogprobs: MASK.map((row, r) => row.map((_, t) => -3.4 + 0.1 * ((r + t) % 3))),
      advantages: MASK.map((row, r) => row.map(() => (r === 0 ? 1 : -0.5))),
      refLogprobs: MASK.map((row) => row.map((_, t) => -3.5 + 0.05 * t)),
      share: { tokens: 1, agg: 1, value: 1 },
      loss,
    };
    const { cpu, gpu } = await onBoth(async () => {
      const model = tiny();
      const { grads, value } = tf.variableGrads(
        () => rlPassLoss({ policy: model }, input, () => {}),
        model.trainableVariables as tf.Variable[],
      );
      const out = {
        loss: (await value.data())[0] as number,
        grads: await flat(model.trainableVariables.map((v) => grads[v.name] as tf.Tensor)),
      };
      model.dispose();
      return out;
    });
    expect(Math.abs(cpu.loss - gpu.loss)).toBeLessThan(TOL);
    const g = gap(cpu.grads, gpu.grads);
    figures.rl_gradients_relative = g.diff / g.scale;
    expect(g.scale).toBeGreaterThan(0);
    expect(figures.rl_gradients_relative).toBeLessThan(TOL);
  });

  it("refuses the trainer's synchronous reads with one clear error instead of a wrong value", async () => {
    await use("webgpu");
    const model = tiny();
    const adam = createAdam({ learningRate: 1e-2 });
    expect(() => sftStep(model, adam, { ids: IDS, targets: TARGETS, mask: MASK })).toThrow(
      /^webgpu: a synchronous read \(dataSync\/arraySync\) of a tensor on the GPU is not possible in Node/,
    );
    model.dispose();
    adam.dispose();
  });
});
