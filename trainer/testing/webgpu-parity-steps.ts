import { frozenCopy } from "../model/frozen-copy.js";
import { createAdam } from "../optim/optimizer-step.js";
import { PolicyPool } from "../parallel/policy-pool.js";
import { TrainConfig } from "../rl/config.js";
import { rlUpdate } from "../rl/update.js";
import type { Trajectory } from "../rollout/types.js";
import { sftStep } from "../sft/step.js";
import { flat, gap, IDS, judge, MASK, onBoth, type ParityResult, TARGETS, TOL, tiny } from "./parity-kit.js";
import { stepRecord, trajectory } from "./rollout-fixtures.js";

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

/** The trainer's own steps on webgpu against cpu: a real `sftStep` and a real `rlUpdate`. */
export const STEP_CASES: Record<string, () => Promise<ParityResult>> = {
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
