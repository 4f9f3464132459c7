import { rng } from "../../shared/random.js";
import { err, ok, type Result } from "../../shared/result.js";
import type { BackendName } from "../backend/names.js";
import { startBackend } from "../backend/start-backend.js";
import { loadPolicy } from "../checkpoint/load-policy.js";
import { connectEnv } from "../client/connect-env.js";
import { createAdam } from "../optim/optimizer-step.js";
import { PolicyPool } from "../parallel/policy-pool.js";
import { writeReport } from "../report/report.js";
import { collectDemos } from "../rollout/demos.js";
import { sampleTasks } from "../rollout/sample-tasks.js";
import { emptySplitReason, expertRefusal } from "../rollout/split-check.js";
import { episodeMetrics } from "../rollout/summary.js";
import { openRunDir, type RunIO } from "../run/io.js";
import type { SftConfig } from "./config.js";
import { padSftRows, type SftRow, sftRows } from "./rows.js";
import { sftStep } from "./step.js";

export type OnEpoch = (epoch: number, total: number, metrics: Record<string, number>) => void;

/** Collects demonstrations, runs `epochs` of masked next-token training, saves the checkpoint. */
export async function runSft(
  config: SftConfig,
  io: RunIO,
  onEpoch: OnEpoch = () => {},
): Promise<Result<{ checkpoint: string; last: Record<string, number> }>> {
  // The env first: an empty split or an expert that refuses the split is known before tfjs loads.
  const env = await connectEnv(config.env, 16, process.env, io.hub);
  if (!env.ok) return env;
  const { client, manifest } = env.value;
  const size = manifest.splits[config.split] ?? 0;
  const unusable =
    size === 0
      ? await emptySplitReason(client, manifest, config.split)
      : await expertRefusal(client, manifest, config.split);
  if (unusable !== undefined) {
    await client.close();
    return err(unusable);
  }
  const backend = await startBackend(config.backend, io);
  if (!backend.ok) return backend;
  const policy = await loadPolicy(config.init, config.model, config.seed, io);
  if (!policy.ok) return policy;
  const { model, tokenizer } = policy.value;
  const resolved = { ...config, backend: backend.value, modelConfig: model.config };
  io.log(`config: ${JSON.stringify(resolved)}`);
  const run = await openRunDir(config.out, resolved);

  const demos = await collectDemos(
    client,
    tokenizer,
    {
      split: config.split,
      tasks: sampleTasks(size, config.episodes, config.seed),
      maxSteps: config.maxSteps,
      concurrency: 16,
      renderTools: config.renderTools,
    },
    manifest.tools,
  );
  await client.close();
  const solved = demos.filter((d) => d.success && d.failure === undefined);
  io.log(
    `demos: ${solved.length} solved of ${demos.length} (${episodeMetrics(demos)["episode/infra_failures"]} failed)`,
  );
  const rows = sftRows(solved, config.learnSteps).filter(
    (r) => r.tokens.length - 1 <= model.config.contextLength,
  );
  if (rows.length === 0)
    return err(
      config.learnSteps
        ? `no usable demonstration reaches learnSteps ${JSON.stringify(config.learnSteps)} (steps count from 0)`
        : "no usable demonstrations",
    );
  io.log(`sft rows: ${rows.length} (${rows.reduce((a, r) => a + r.tokens.length, 0)} tokens)`);

  const optimizer =
    policy.value.checkpoint?.optimizer?.withLearningRate(config.lr) ??
    createAdam({ learningRate: config.lr });
  const pool = await PolicyPool.start(config.workers, backend.value as BackendName, { policy: model });
  const order = rows.map((_, i) => i);
  const shuffle = rng(config.seed);
  let last: Record<string, number> = {};
  for (let epoch = 1; epoch <= config.epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = shuffle.int(0, i);
      [order[i], order[j]] = [order[j] as number, order[i] as number];
    }
    let loss = 0;
    let tokens = 0;
    let learned = 0;
    let steps = 0;
    const t0 = performance.now();
    for (let from = 0; from < order.length; from += config.batchRows) {
      const chunk = order.slice(from, from + config.batchRows).map((r) => rows[r] as SftRow);
      const rowsBatch = padSftRows(chunk, tokenizer.special.pad);
      const step = await sftStep(pool, optimizer, rowsBatch, { maxGradNorm: config.maxGradNorm });
      loss += step.loss;
      learned += step.tokens;
      // Every position the model runs, as RL's figure counts them, not only the learned ones.
      tokens += chunk.reduce((a, r) => a + r.tokens.length - 1, 0);
      steps++;
    }
    const seconds = (performance.now() - t0) / 1000;
    last = {
      iteration: epoch,
      "losses/sft": loss / steps,
      "perf/train_tokens_per_s": tokens / seconds,
      "perf/learned_tokens_per_s": learned / seconds,
    };
    await run.metrics(last);
    onEpoch(epoch, config.epochs, last);
  }
  await pool.close();
  // The loss curve, as an RL run's report.png shows its curves.
  await writeReport(config.out, `${manifest.name} · sft`);
  const checkpoint = run.checkpoint("final");
  const saved = await io.saveCheckpoint(checkpoint, {
    model,
    tokenizer,
    optimizer,
    meta: { step: config.epochs, kind: "sft", env: manifest.name },
  });
  if (!saved.ok) return err(`cannot save ${checkpoint}: ${saved.error}`);
  io.log(`checkpoint: ${checkpoint}`);
  return ok({ checkpoint, last });
}
