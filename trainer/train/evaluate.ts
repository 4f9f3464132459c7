import { err, ok, type Result } from "../../shared/result.js";
import { credentialsPath, readCredentials, resolveHub } from "../cli/hub-client.js";
import type { EnvClient } from "../client/env-client.js";
import { runRollouts } from "../rollout/loop.js";
import type { StartSession, Trajectory } from "../rollout/types.js";
import type { EvalConfig, EvalSummary } from "./eval-config.js";
import { HubEvalRun } from "./hub-eval.js";
import { openAIClient, runRemoteEpisodes } from "./openai-policy.js";
import { connectEnv, loadPolicy, type RunIO, startBackend } from "./session.js";
import { episodeMetrics } from "./summary.js";

const HUB_ENV = /^hub:\/\/([a-z0-9-]+\/[a-z0-9-]+@[0-9A-Za-z.+-]+)$/;

/**
 * Runs the evaluation and summarises it (see `formatEvalTable`). With `upload`, it runs as a hub
 * evaluation: the hub creates the run over tasks 0..n−1, issues every session, and its verdict on
 * the uploaded receipts is added to the summary.
 */
export async function runEval(
  config: EvalConfig,
  io: RunIO,
  env = process.env,
): Promise<Result<EvalSummary>> {
  const target = HUB_ENV.exec(config.env)?.[1];
  if (config.upload && target === undefined) return err("--upload needs a hub://owner/name@version env");
  const connected = await connectEnv(config.env, config.concurrency, env);
  if (!connected.ok) return connected;
  const { client, manifest } = connected.value;
  const tasks = Array.from({ length: Math.min(config.n, manifest.splits[config.split] ?? 0) }, (_, i) => i);
  try {
    if (tasks.length === 0) return err(`${manifest.name} has no tasks in split "${config.split}"`);
    let run: HubEvalRun | undefined;
    if (config.upload && target !== undefined) {
      const hub = resolveHub({}, env, readCredentials(credentialsPath(env)));
      const created = await HubEvalRun.create(hub.url, hub.token, {
        env: target,
        split: config.split,
        tasks: { indices: tasks },
        model: { name: config.policy.startsWith("openai:") ? config.model : config.policy },
      });
      if (!created.ok) return created;
      run = created.value;
      io.log(`hub evaluation run: ${run.id}`);
    }
    const episodes = await runEpisodes(config, io, client, manifest, tasks, run?.start);
    if (!episodes.ok) return episodes;
    const summary = summarise(config, episodes.value);
    if (run === undefined) return ok(summary);
    const uploaded = await run.upload(episodes.value);
    if (!uploaded.ok) return uploaded;
    const finished = await run.finish();
    if (!finished.ok) return finished;
    return ok({
      ...summary,
      hub: {
        run: run.id,
        ...uploaded.value,
        verified: finished.value?.verified ?? 0,
        successRate: finished.value?.successRate ?? 0,
      },
    });
  } finally {
    await client.close();
  }
}

async function runEpisodes(
  config: EvalConfig,
  io: RunIO,
  client: EnvClient,
  manifest: Parameters<typeof runRemoteEpisodes>[3],
  tasks: number[],
  start: StartSession | undefined,
): Promise<Result<Trajectory[]>> {
  const common = { split: config.split, tasks, maxSteps: config.maxSteps, ...(start ? { start } : {}) };
  if (config.policy.startsWith("openai:")) {
    const openai = openAIClient(config.policy.slice("openai:".length));
    return ok(
      await runRemoteEpisodes(openai, config.model, client, manifest, {
        ...common,
        concurrency: config.concurrency,
        temperature: config.temperature,
        maxTokens: config.maxNewTokens,
      }),
    );
  }
  const backend = await startBackend(config.backend, io);
  if (!backend.ok) return backend;
  const policy = await loadPolicy(config.policy, {}, config.seed, io);
  if (!policy.ok) return policy;
  const out = await runRollouts(
    policy.value.model,
    policy.value.tokenizer,
    client,
    {
      ...common,
      groupSize: 1,
      maxLive: config.concurrency,
      maxNewTokens: config.maxNewTokens,
      temperature: config.temperature,
      topP: 1,
      seed: config.seed,
      renderTools: false,
    },
    manifest.tools,
  );
  return ok(out.trajectories);
}

export function summarise(
  config: Pick<EvalConfig, "env" | "policy" | "split">,
  t: readonly Trajectory[],
): EvalSummary {
  const m = episodeMetrics(t);
  return {
    env: config.env,
    policy: config.policy,
    split: config.split,
    episodes: t.length,
    success: m["reward/success"] ?? 0,
    reward: m["reward/mean"] ?? 0,
    steps: m["episode/steps"] ?? 0,
    toolCalls: m["episode/tool_calls"] ?? 0,
    infraFailures: m["episode/infra_failures"] ?? 0,
  };
}
