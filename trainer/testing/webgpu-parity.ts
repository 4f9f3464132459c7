import * as tf from "@tensorflow/tfjs-core";
import { initBackend } from "../backend/backend.js";
import { createModel } from "../model/create-model.js";
import { frozenCopy } from "../model/frozen-copy.js";
import type { PolicyModel } from "../model/types.js";
import { createAdam } from "../optim/optimizer-step.js";
import { PolicyPool } from "../parallel/policy-pool.js";
import { TrainConfig } from "../rl/config.js";
import { rlUpdate } from "../rl/update.js";
import { type LossSettings, type RlPassInput, rlPassLoss } from "../rl/update-step.js";
import type { Trajectory } from "../rollout/types.js";
import { maskedNll, sftStep } from "../sft/step.js";
import { stepRecord, trajectory } from "./rollout-fixtures.js";

/**
 * The webgpu backend against the cpu backend on the same model (same config, same seed, so the same
 * initial weights), for `npm run test:gpu` and the device check. Each case runs its body once per
 * backend and returns the largest differences and what was out of tolerance. Tolerances: float32 sums
 * in another order differ by a few ulps per term; 1e-5 absolute on values of order 1 (logits,
 * log-probabilities) and 1e-5 relative to the largest element on gradients is ~100 ulps (Adam's updated
 * weights: 1e-4, see there), far below what a wrong kernel gives (≥ 1e-2).
 */

export interface ParityResult {
  figures: Record<string, number>;
  /** What was out of tolerance; empty when the backends agree. */
  failures: string[];
}

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

function tiny(): PolicyModel {
  const made = createModel(TINY, { seed: 5 });
  if (!made.ok) throw new Error(made.error);
  return made.value;
}

async function use(name: "cpu" | "webgpu"): Promise<void> {
  const ready = await initBackend(name);
  if (!ready.ok) throw new Error(ready.error);
}

/** Runs `body` on cpu, then on webgpu; returns both results. */
async function onBoth<T>(body: () => Promise<T>): Promise<{ cpu: T; gpu: T }> {
  await use("cpu");
  const cpu = await body();
  await use("webgpu");
  const gpu = await body();
  return { cpu, gpu };
}

/** The largest |a − b| over all elements, and the largest |a|. */
function gap(a: ArrayLike<number>, b: ArrayLike<number>): { diff: number; scale: number } {
  if (a.length !== b.length) return { diff: Number.POSITIVE_INFINITY, scale: 1 };
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < a.length; i++) {
    diff = Math.max(diff, Math.abs((a[i] as number) - (b[i] as number)));
    scale = Math.max(scale, Math.abs(a[i] as number));
  }
  return { diff, scale };
}

/** Figures, and a failure for each that is not below its bound. */
function judge(
  figures: Record<string, number>,
  bounds: Record<string, number>,
  extra: string[] = [],
): ParityResult {
  const failures = Object.entries(bounds)
    .filter(([name, bound]) => !((figures[name] ?? Number.NaN) < bound))
    .map(([name, bound]) => `${name} ${figures[name]} not below ${bound}`);
  return { figures, failures: [...failures, ...extra] };
}

const flat = async (ts: readonly tf.Tensor[]) =>
  Float32Array.from((await Promise.all(ts.map((t) => t.data()))).flatMap((d) => [...d]));

const ids = () => tf.tensor2d(IDS, undefined, "int32");
const targets = () => tf.tensor2d(TARGETS, undefined, "int32");

/** The loss and every gradient element of `loss(model)`, read with await. */
async function lossAndGrads(loss: (model: PolicyModel) => tf.Scalar) {
  const model = tiny();
  const { grads, value } = tf.variableGrads(() => loss(model), model.trainableVariables as tf.Variable[]);
  const out = {
    loss: (await value.data())[0] as number,
    grads: await flat(model.trainableVariables.map((v) => grads[v.name] as tf.Tensor)),
  };
  tf.dispose([value, ...Object.values(grads)]);
  model.dispose();
  return out;
}

const sftLoss = (model: PolicyModel) => maskedNll(model.logprobsOf(ids(), targets()), tf.tensor2d(MASK));

// Old and reference log-probabilities off the current ones, and advantages of both signs, so the
// clip, the KL and the entropy terms all carry gradient.
const RL_LOSS: LossSettings = {
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
const RL_INPUT: RlPassInput = {
  ids: IDS,
  targets: TARGETS,
  mask: MASK,
  oldLogprobs: MASK.map((row, r) => row.map((_, t) => -3.4 + 0.1 * ((r + t) % 3))),
  advantages: MASK.map((row, r) => row.map(() => (r === 0 ? 1 : -0.5))),
  refLogprobs: MASK.map((row) => row.map((_, t) => -3.5 + 0.05 * t)),
  share: { tokens: 1, agg: 1, value: 1 },
  loss: RL_LOSS,
};

/**
 * Two groups of two two-step episodes (a call, then an answer after observation ids), rewarded 1 and
 * 0 within each group, so GRPO's advantages have both signs.
 */
const RL_EPISODES = (): Trajectory[] =>
  [0, 1, 2, 3].map((e) =>
    trajectory([
      stepRecord({ episode: e, group: e >> 1, promptIds: [1, 2, 3], responseIds: [4, 5 + e] }),
      stepRecord({
        episode: e,
        group: e >> 1,
        step: 1,
        promptIds: [1, 2, 3, 4, 5 + e, 9, 9],
        responseIds: [10, 11, 12 + e],
        responseLogprobs: [-3, -3, -3],
        reward: e % 2 === 0 ? 1 : 0,
        done: true,
      }),
    ]),
  );

export const PARITY_CASES: Record<string, () => Promise<ParityResult>> = {
  "forward pass (logits)": async () => {
    const { cpu, gpu } = await onBoth(async () => {
      const model = tiny();
      const out = await model.logits(ids()).data();
      model.dispose();
      return out;
    });
    return judge({ logits: gap(cpu, gpu).diff }, { logits: TOL });
  },

  "log-probabilities and entropy": async () => {
    const { cpu, gpu } = await onBoth(async () => {
      const model = tiny();
      const ev = model.evaluate(ids(), targets(), { entropy: true });
      const out = { logprobs: await ev.logprobs.data(), entropy: await (ev.entropy as tf.Tensor).data() };
      model.dispose();
      return out;
    });
    const figures = {
      logprobs: gap(cpu.logprobs, gpu.logprobs).diff,
      entropy: gap(cpu.entropy, gpu.entropy).diff,
    };
    return judge(figures, { logprobs: TOL, entropy: TOL });
  },

  "every gradient element of the masked SFT loss": async () => {
    const { cpu, gpu } = await onBoth(() => lossAndGrads(sftLoss));
    const g = gap(cpu.grads, gpu.grads);
    const figures = {
      gradient_elements: cpu.grads.length,
      sft_loss: Math.abs(cpu.loss - gpu.loss),
      gradients_relative: g.diff / g.scale,
    };
    const few = cpu.grads.length > 10_000 ? [] : [`only ${cpu.grads.length} gradient elements`];
    return judge(figures, { sft_loss: TOL, gradients_relative: TOL }, few);
  },

  "greedy and seeded top-p sampling (same tokens)": async () => {
    const { cpu, gpu } = await onBoth(async () => {
      const model = tiny();
      const prompts = [[1, 2, 3], [4, 5], [6]];
      const base = { maxNewTokens: 8, stopIds: [] };
      const greedy = await model.sample(prompts, { ...base, temperature: 0, topP: 1, seed: 1 });
      const nucleus = await model.sample(prompts, { ...base, temperature: 1, topP: 0.9, seed: 3 });
      model.dispose();
      return JSON.stringify({ greedy: greedy.tokens, nucleus: nucleus.tokens });
    });
    return { figures: {}, failures: cpu === gpu ? [] : [`tokens differ: cpu ${cpu}, webgpu ${gpu}`] };
  },

  "three Adam steps on the SFT loss (losses and weights)": async () => {
    const { cpu, gpu } = await onBoth(async () => {
      const model = tiny();
      const adam = createAdam({ learningRate: 1e-2 });
      const losses: number[] = [];
      for (let step = 0; step < 3; step++) {
        const { grads, value } = tf.variableGrads(
          () => sftLoss(model),
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
    const w = gap(cpu.weights, gpu.weights);
    const figures = {
      adam_losses: gap(cpu.losses, gpu.losses).diff,
      adam_weights_relative: w.diff / w.scale,
    };
    const learned = (cpu.losses[2] as number) < (cpu.losses[0] as number) ? [] : ["the loss did not fall"];
    // Adam's m/√v turns the few-ulp gradient differences of elements near zero into differences of a
    // fraction of a step (lr 1e-2): 1e-4 of the largest weight is 1% of one step.
    return judge(figures, { adam_losses: TOL, adam_weights_relative: 1e-4 }, learned);
  },

  "RL pass loss (PPO clip, KL, entropy) and its gradient": async () => {
    const { cpu, gpu } = await onBoth(() =>
      lossAndGrads((model) => rlPassLoss({ policy: model }, RL_INPUT, () => {})),
    );
    const g = gap(cpu.grads, gpu.grads);
    const figures = { rl_loss: Math.abs(cpu.loss - gpu.loss), rl_gradients_relative: g.diff / g.scale };
    return judge(
      figures,
      { rl_loss: TOL, rl_gradients_relative: TOL },
      g.scale > 0 ? [] : ["no RL gradient"],
    );
  },

  "one SFT step (sftStep: passes, gradient clipping, Adam)": async () => {
    const { cpu, gpu } = await onBoth(async () => {
      const model = tiny();
      const adam = createAdam({ learningRate: 1e-2 });
      const pool = PolicyPool.of({ policy: model });
      const batch = { ids: IDS, targets: TARGETS, mask: MASK };
      // A clip bound below the gradient's norm, so the clipped step is the one compared; passes of
      // one row each, so the pass split and the summed gradient are too.
      const steps = [];
      for (let step = 0; step < 2; step++)
        steps.push(await sftStep(pool, adam, batch, { maxGradNorm: 0.5, passElements: 1 }));
      const weights = await flat(model.trainableVariables);
      model.dispose();
      adam.dispose();
      return { steps, weights };
    });
    const w = gap(cpu.weights, gpu.weights);
    const figures = {
      sft_step_loss: gap(
        cpu.steps.map((s) => s.loss),
        gpu.steps.map((s) => s.loss),
      ).diff,
      sft_step_grad_norm: gap(
        cpu.steps.map((s) => s.gradNorm),
        gpu.steps.map((s) => s.gradNorm),
      ).diff,
      sft_step_weights_relative: w.diff / w.scale,
    };
    const clipped = cpu.steps.every((s) => s.gradNorm > 0.5) ? [] : ["the gradient was not clipped"];
    return judge(
      figures,
      { sft_step_loss: TOL, sft_step_grad_norm: TOL, sft_step_weights_relative: 1e-4 },
      clipped,
    );
  },

  "one RL iteration (rlUpdate: scoring, GRPO advantages, PPO step with KL)": async () => {
    const { cpu, gpu } = await onBoth(async () => {
      const model = tiny();
      const reference = frozenCopy(model, 1);
      if (!reference.ok) throw new Error(reference.error);
      const adam = createAdam({ learningRate: 1e-2 });
      const config = TrainConfig.parse({ algorithm: "grpo", klCoef: 0.05, ppoEpochs: 2, maxGradNorm: 1 });
      const out = await rlUpdate(
        { model, reference: reference.value, optimizer: adam, config, pad: 0 },
        RL_EPISODES(),
      );
      const weights = await flat(model.trainableVariables);
      model.dispose();
      reference.value.dispose();
      adam.dispose();
      return { metrics: out.metrics, trainTokens: out.trainTokens, weights };
    });
    const names = Object.keys(cpu.metrics).sort();
    const w = gap(cpu.weights, gpu.weights);
    const figures = {
      rl_metrics: gap(
        names.map((k) => cpu.metrics[k] as number),
        names.map((k) => gpu.metrics[k] ?? Number.NaN),
      ).diff,
      rl_weights_relative: w.diff / w.scale,
    };
    const extra = [
      ...(names.join() === Object.keys(gpu.metrics).sort().join() ? [] : ["the metrics differ in name"]),
      ...(cpu.trainTokens === gpu.trainTokens
        ? []
        : [`trained ${cpu.trainTokens} vs ${gpu.trainTokens} tokens`]),
      ...(cpu.trainTokens > 0 ? [] : ["no token trained"]),
    ];
    return judge(figures, { rl_metrics: TOL, rl_weights_relative: 1e-4 }, extra);
  },
};
