import * as tf from "@tensorflow/tfjs-core";
import { describe, expect, it } from "vitest";
import { initBackend } from "../backend/backend.js";
import { type Gradients, NamedAdam, type NamedTensor } from "./named-adam.js";
import { createAdam } from "./optimizer-step.js";

/** Two variables and three steps of gradients, with values spread over many magnitudes. */
function problem() {
  const wave = (n: number, k: number) => Array.from({ length: n }, (_, i) => Math.sin(i * k) * 10 ** (i % 5));
  const a = tf.variable(tf.tensor2d(wave(12, 0.7), [3, 4]));
  const b = tf.variable(tf.tensor1d(wave(5, 1.3)));
  const grads = [1, 2, 3].map(
    (s): Record<string, tf.Tensor> => ({
      [a.name]: tf.tensor2d(wave(12, 0.3 * s), [3, 4]),
      [b.name]: tf.tensor1d(wave(5, 0.9 * s)),
    }),
  );
  return { vars: [a, b], grads };
}

const bits = (t: tf.Tensor) => Array.from(new Uint32Array((t.dataSync() as Float32Array).slice().buffer));

/** The variables' bits after the steps, and the optimizer's moments as getWeights lists them. */
async function trained(make: () => tf.AdamOptimizer) {
  const { vars, grads } = problem();
  const before = tf.memory().numTensors;
  const adam: tf.Optimizer = make();
  for (const g of grads) adam.applyGradients(g);
  const optimizerTensors = tf.memory().numTensors - before;
  const [iter, ...slots] = (await adam.getWeights()) as NamedTensor[];
  const out = { values: vars.map(bits), moments: slots.map((s) => bits(s.tensor)) };
  tf.dispose([...vars, ...grads.flatMap((g) => Object.values(g)), iter?.tensor as tf.Tensor]);
  adam.dispose();
  return { out, optimizerTensors };
}

describe("NamedAdam with host moments", () => {
  for (const backend of ["cpu", "wasm"] as const) {
    it(`steps to the bits of tfjs's own Adam on ${backend}`, async () => {
      const ready = await initBackend(backend);
      if (!ready.ok) throw new Error(ready.error);
      const ours = await trained(() => createAdam({ learningRate: 0.01 }));
      const theirs = await trained(() => tf.train.adam(0.01, 0.9, 0.999, 1e-8));
      expect(ours.out).toEqual(theirs.out);
      // tfjs keeps the β powers and the two moments of each variable as tensors; here only the powers.
      expect(theirs.optimizerTensors).toBe(2 + 2 * 2);
      expect(ours.optimizerTensors).toBe(2);
    });
  }

  it("keeps the moments as tensors when told to, as on webgpu, with the same bits", async () => {
    const ready = await initBackend("cpu");
    if (!ready.ok) throw new Error(ready.error);
    const device = await trained(() => new NamedAdam(0.01, 0.9, 0.999, 1e-8, false));
    const theirs = await trained(() => tf.train.adam(0.01, 0.9, 0.999, 1e-8));
    expect(device).toEqual(theirs);
  });

  it("restores saved moments and steps on as the optimizer that never stopped", async () => {
    const ready = await initBackend("cpu");
    if (!ready.ok) throw new Error(ready.error);
    const { vars, grads } = problem();
    const straight = createAdam({ learningRate: 0.01 });
    for (const g of grads.slice(0, 2)) straight.applyGradients(g as Gradients);
    // A second process: copies of the variables after two steps, and an optimizer restored from the moments.
    const copy = vars.map((v) => tf.variable(v.clone()));
    const rename = (g: Record<string, tf.Tensor>) =>
      Object.fromEntries(vars.map((v, i) => [copy[i]?.name as string, g[v.name] as tf.Tensor]));
    const [, ...slots] = (await straight.getWeights()) as NamedTensor[];
    const resumed = createAdam({ learningRate: 0.01 });
    await resumed.restore(
      2,
      copy.map((c, i) => ({
        variable: c.name,
        m: (slots[i] as NamedTensor).tensor,
        v: (slots[i + copy.length] as NamedTensor).tensor,
      })),
    );
    straight.applyGradients(grads[2] as Gradients);
    resumed.applyGradients(rename(grads[2] as Record<string, tf.Tensor>) as Gradients);
    expect(copy.map(bits)).toEqual(vars.map(bits));
    expect(resumed.iterations).toBe(3);
  });
});
