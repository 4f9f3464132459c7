import * as tf from "@tensorflow/tfjs-core";
import { EnvClient } from "../client/env-client.js";
import { resolveEnv } from "../client/resolve-env.js";
import { createModel } from "../model/create-model.js";
import { frozenCopy } from "../model/frozen-copy.js";
import type { PolicyModel } from "../model/types.js";
import { collectDemos } from "../rollout/demos.js";
import { runRollouts } from "../rollout/loop.js";
import { sampleTasks } from "../rollout/sample-tasks.js";
import { sftStep } from "../sft/sft-step.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import { buildBatch } from "./batch.js";
import { TrainConfig } from "./config.js";
import { rlUpdate } from "./rl-update.js";

export type ProbeOptions = {
  /** SFT steps of 16 rows on 64 expert episodes. */
  sftSteps: number;
  /** Adam learning rate of the SFT steps. */
  sftLr: number;
  /** RL iterations of 8 tasks × 8 rollouts for each algorithm. */
  iterations: number;
  lr: number;
  ppoEpochs: number;
  /** Weight of negative advantages (the calculator recipes' 0.25; see `TrainConfig`). */
  negativeAdvantageWeight: number;
};

export const DEFAULT_PROBE: ProbeOptions = {
  sftSteps: 250,
  sftLr: 5e-3,
  iterations: 100,
  lr: 1e-3,
  ppoEpochs: 2,
  negativeAdvantageWeight: 0.25,
};

export type ProbePhase = { phase: string; success: number; seconds: number };

/**
 * SFT on expert demos of the tiny built-in `lookup` task, then GRPO and StepPO (GSPO loss,
 * step-level GAE with the value head), each from the same SFT weights; greedy success on all 100 test
 * tasks after each phase. Call `initBackend` first. Everything is seeded, so one backend gives the
 * same numbers.
 */
export async function learningProbe(
  opts: ProbeOptions,
  onPhase: (p: ProbePhase) => void = () => {},
): Promise<Record<string, number>> {
  const tokenizer = new ByteTokenizer();
  // The built-in `lookup` environment (environments/lookup/), in-process as `--env local:lookup` runs it.
  const transport = await resolveEnv("local:lookup", { connections: 64 });
  if (!transport.ok) throw new Error(transport.error);
  const client = new EnvClient(transport.value);
  const t0 = performance.now();
  const out: Record<string, number> = {};
  const record = (phase: string, success: number) => {
    out[phase] = success;
    onPhase({ phase, success, seconds: (performance.now() - t0) / 1000 });
  };
  const rollout = (
    model: PolicyModel,
    split: string,
    tasks: number[],
    groupSize: number,
    temperature: number,
  ) =>
    runRollouts(model, tokenizer, client, {
      split,
      tasks,
      groupSize,
      maxLive: 64,
      maxSteps: 3,
      maxNewTokens: 6,
      temperature,
      topP: 1,
      seed: tasks[0] ?? 0,
      renderTools: false,
    });
  const successRate = async (model: PolicyModel) => {
    const { trajectories } = await rollout(
      model,
      "test",
      Array.from({ length: 100 }, (_, i) => i),
      1,
      0,
    );
    return trajectories.filter((t) => t.success).length / trajectories.length;
  };

  // Four heads: behind the env's system turn, two heads did not learn to copy the digits in 300 SFT
  // steps (greedy success 0.02).
  const made = createModel(
    { dModel: 32, nLayers: 1, nHeads: 4, nKvHeads: 4, dFf: 64, contextLength: 64, valueHead: true },
    { seed: 1 },
  );
  if (!made.ok) throw new Error(made.error);
  const sft = made.value;
  const demos = await collectDemos(client, tokenizer, {
    split: "train",
    tasks: sampleTasks(10_000, 64, 5),
    maxSteps: 3,
    concurrency: 8,
    renderTools: false,
  });
  const batch = buildBatch(demos, tokenizer.special.pad);
  const adam = tf.train.adam(opts.sftLr);
  for (let s = 0; s < opts.sftSteps; s++) {
    const rows = Array.from({ length: 16 }, (_, i) => (s * 16 + i) % batch.sequences.length);
    const pick = (m: number[][]) => rows.map((r) => m[r] as number[]);
    sftStep(
      sft,
      adam,
      { ids: pick(batch.ids), targets: pick(batch.targets), mask: pick(batch.mask) },
      {
        maxGradNorm: 1,
      },
    );
  }
  record("sft", await successRate(sft));

  // StepPO brings its GSPO loss and clip range 3e-3/4e-3 (trainer/algos/registry.ts).
  for (const overrides of [{ algorithm: "grpo" }, { algorithm: "steppo" }]) {
    const copy = frozenCopy(sft, 1);
    if (!copy.ok) throw new Error(copy.error);
    const config = TrainConfig.parse({
      lr: opts.lr,
      ppoEpochs: opts.ppoEpochs,
      negativeAdvantageWeight: opts.negativeAdvantageWeight,
      ...overrides,
    });
    const optimizer = tf.train.adam(config.lr);
    for (let it = 1; it <= opts.iterations; it++) {
      const { trajectories } = await rollout(copy.value, "train", sampleTasks(10_000, 8, 100 + it), 8, 1);
      await rlUpdate({ model: copy.value, optimizer, config, pad: tokenizer.special.pad }, trajectories);
    }
    record(config.algorithm, await successRate(copy.value));
    copy.value.dispose();
  }
  await client.close();
  return out;
}
