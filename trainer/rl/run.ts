import { err, ok, type Result } from "../../shared/result.js";
import { sameMethod } from "../algos/registry.js";
import type { BackendName } from "../backend/names.js";
import { startBackend } from "../backend/start-backend.js";
import { loadPolicy } from "../checkpoint/load-policy.js";
import type { Checkpoint } from "../checkpoint/types.js";
import { connectEnv } from "../client/connect-env.js";
import { frozenCopy } from "../model/frozen-copy.js";
import { checkTrainingMemory } from "../model/memory.js";
import type { PolicyModel } from "../model/types.js";
import { createAdam } from "../optim/optimizer-step.js";
import { PolicyPool } from "../parallel/policy-pool.js";
import { writeReport } from "../report/report.js";
import { runRollouts } from "../rollout/loop.js";
import { sampleTasks } from "../rollout/sample-tasks.js";
import { emptySplitReason } from "../rollout/split-check.js";
import { episodeMetrics, rolloutPerf, trajectoryLine } from "../rollout/summary.js";
import { openRunDir, type RunIO } from "../run/io.js";
import type { TrainConfig } from "./config.js";
import { sampleIteration } from "./dynamic-sampling.js";
import { episodeScore } from "./targets.js";
import { rlUpdate } from "./update.js";

/** Called after each iteration with its metrics, for progress bars or log lines. */
export type OnIteration = (iteration: number, total: number, metrics: Record<string, number>) => void;

/**
 * An RL run: each iteration samples `tasksPerIteration` tasks, rolls each out `groupSize` times with
 * continuous batching, and updates the policy; metrics, sampled trajectories, checkpoints and the
 * report go to the run folder.
 */
export async function runRl(
  config: TrainConfig,
  io: RunIO,
  onIteration: OnIteration = () => {},
): Promise<Result<{ runDir: string; last: Record<string, number> }>> {
  const backend = await startBackend(config.backend, io);
  if (!backend.ok) return backend;
  const policy = await loadPolicy(config.init, config.model, config.seed, io);
  if (!policy.ok) return policy;
  const { model, tokenizer } = policy.value;
  const memory = checkTrainingMemory(model.config, {
    reference: config.klCoef > 0,
    backend: backend.value,
    ...(config.memoryBudgetMiB !== undefined ? { budgetMiB: config.memoryBudgetMiB } : {}),
  });
  if (!memory.ok) return err(memory.error);
  io.log(memory.line);
  const env = await connectEnv(config.env, config.maxLive, process.env, io.hub);
  if (!env.ok) return env;
  const { client, manifest } = env.value;
  const size = manifest.splits[config.split];
  if (size === undefined || size === 0) return err(await emptySplitReason(client, manifest, config.split));

  const resolved = { ...config, backend: backend.value, modelConfig: model.config, env: config.env };
  io.log(`config: ${JSON.stringify(resolved)}`);
  const run = await openRunDir(config.out, resolved);
  // Adam moments carry over only when resuming the same RL algorithm: an SFT checkpoint's moments
  // cover fewer variables (no value head) and its learning rate is SFT's.
  const resumed = policy.value.checkpoint;
  const optimizer =
    resumed?.optimizer && sameMethod(resumed.meta.algorithm, config.algorithm)
      ? resumed.optimizer.withLearningRate(config.lr)
      : createAdam({ learningRate: config.lr });
  const ref = config.klCoef > 0 ? await referencePolicy(config, model, io) : undefined;
  if (ref && !ref.ok) return ref;
  const reference = ref?.value;
  const pad = tokenizer.special.pad;
  const pool = await PolicyPool.start(config.workers, backend.value as BackendName, {
    policy: model,
    ...(reference ? { reference } : {}),
  });
  let last: Record<string, number> = {};
  const save = async (dir: string, checkpoint: Checkpoint) => {
    const saved = await io.saveCheckpoint(dir, checkpoint);
    io.log(saved.ok ? `checkpoint: ${dir}` : `checkpoint ${dir} failed: ${saved.error}`);
  };

  try {
    for (let iteration = 1; iteration <= config.iterations; iteration++) {
      const rollout = (round: number) =>
        runRollouts(
          pool.generator(),
          tokenizer,
          client,
          {
            split: config.split,
            // Round 0 draws as a run without dynamic sampling does; later rounds draw streams of their own.
            tasks: sampleTasks(
              size,
              config.tasksPerIteration,
              config.seed * 7919 + iteration + round * 1_000_033,
            ),
            groupSize: config.groupSize,
            maxLive: config.maxLive,
            maxSteps: config.maxSteps,
            maxNewTokens: config.maxNewTokens,
            temperature: config.temperature,
            topP: config.topP,
            seed: config.seed * 1_000_003 + iteration * 1009 + round * 7_000_003,
            renderTools: config.renderTools,
          },
          manifest.tools,
        );
      const sample = await sampleIteration(
        {
          tasks: config.tasksPerIteration,
          filter: config.filterGroups,
          maxRounds: config.filterRounds,
          score: (t) => episodeScore(t, config.rewardFrom),
        },
        rollout,
      );
      const t0 = performance.now();
      const update = await rlUpdate(
        { model, optimizer, config, pad, pool, ...(reference ? { reference } : {}) },
        sample.train,
      );
      const seconds = (performance.now() - t0) / 1000;
      last = {
        iteration,
        ...episodeMetrics(sample.all),
        ...sample.metrics,
        ...update.metrics,
        ...rolloutPerf(sample.stats, client.stats),
        "perf/train_tokens_per_s": seconds > 0 ? update.trainTokens / seconds : 0,
      };
      await run.metrics(last);
      await run.trajectories(
        sample.all.slice(0, config.logTrajectories).map((t) => trajectoryLine(iteration, t, tokenizer)),
      );
      if (iteration % config.checkpointEvery === 0 && iteration < config.iterations) {
        await save(run.checkpoint(`iter-${iteration}`), {
          model,
          tokenizer,
          optimizer,
          meta: { step: iteration, algorithm: config.algorithm },
        });
      }
      onIteration(iteration, config.iterations, last);
    }
    await save(run.checkpoint("final"), {
      model,
      tokenizer,
      optimizer,
      meta: { step: config.iterations, algorithm: config.algorithm },
    });
    await writeReport(config.out, `${manifest.name} · ${config.algorithm}`);
  } finally {
    await pool.close();
    reference?.dispose();
    await client.close();
  }
  return ok({ runDir: config.out, last });
}

/** The frozen KL reference: the `reference` checkpoint's weights, or a copy of the starting ones. */
async function referencePolicy(
  config: TrainConfig,
  model: PolicyModel,
  io: RunIO,
): Promise<Result<PolicyModel>> {
  if (config.reference === undefined) return frozenCopy(model, config.seed);
  // The reference scores the policy's rows, so it runs at the policy's context length.
  const loaded = await io.loadCheckpoint(config.reference, { contextLength: model.config.contextLength });
  if (!loaded.ok) return err(`cannot load the KL reference ${config.reference}: ${loaded.error}`);
  return ok(loaded.value.model);
}
