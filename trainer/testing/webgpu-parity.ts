import * as tf from "@tensorflow/tfjs-core";
import type { PolicyModel } from "../model/types.js";
import { createAdam } from "../optim/optimizer-step.js";
import { type LossSettings, type RlPassInput, rlPassLoss } from "../rl/update-step.js";
import { maskedNll } from "../sft/step.js";
import {
  flat,
  gap,
  IDS,
  ids,
  judge,
  MASK,
  onBoth,
  type ParityResult,
  TARGETS,
  TOL,
  targets,
  tiny,
} from "./parity-kit.js";
import { STEP_CASES } from "./webgpu-parity-steps.js";

export type { ParityResult } from "./parity-kit.js";

/**
 * The webgpu backend against the cpu backend, for `npm run test:gpu` and the device check: the model's
 * forward, log-probabilities, gradients, sampling and Adam here, the trainer's SFT step and RL
 * iteration in webgpu-parity-steps.ts. Each case runs its body once per backend and returns the
 * largest differences and what was out of tolerance (parity-kit.ts).
 */

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

  ...STEP_CASES,
};
