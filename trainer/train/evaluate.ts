import { err, ok, type Result } from "../../shared/result.js";
import { runRollouts } from "../rollout/loop.js";
import type { Trajectory } from "../rollout/types.js";
import type { EvalConfig, EvalSummary } from "./eval-config.js";
import { openAIClient, runRemoteEpisodes } from "./openai-policy.js";
import { connectEnv, loadPolicy, type RunIO, startBackend } from "./session.js";
import { episodeMetrics } from "./summary.js";

/** Runs the evaluation and summarises it (see `formatEvalTable`). */
export async function runEval(config: EvalConfig, io: RunIO): Promise<Result<EvalSummary>> {
  const env = await connectEnv(config.env, config.concurrency);
  if (!env.ok) return env;
  const { client, manifest } = env.value;
  const tasks = Array.from({ length: Math.min(config.n, manifest.splits[config.split] ?? 0) }, (_, i) => i);
  if (tasks.length === 0) return err(`${manifest.name} has no tasks in split "${config.split}"`);
  let trajectories: Trajectory[];
  try {
    if (config.policy.startsWith("openai:")) {
      trajectories = await runRemoteEpisodes(
        openAIClient(config.policy.slice("openai:".length)),
        config.model,
        client,
        manifest,
        {
          split: config.split,
          tasks,
          maxSteps: config.maxSteps,
          concurrency: config.concurrency,
          temperature: config.temperature,
          maxTokens: config.maxNewTokens,
        },
      );
    } else {
      const backend = await startBackend(config.backend, io);
      if (!backend.ok) return backend;
      const policy = await loadPolicy(config.policy, {}, config.seed, io);
      if (!policy.ok) return policy;
      const out = await runRollouts(
        policy.value.model,
        policy.value.tokenizer,
        client,
        {
          split: config.split,
          tasks,
          groupSize: 1,
          maxLive: config.concurrency,
          maxSteps: config.maxSteps,
          maxNewTokens: config.maxNewTokens,
          temperature: config.temperature,
          topP: 1,
          seed: config.seed,
          renderTools: false,
        },
        manifest.tools,
      );
      trajectories = out.trajectories;
    }
  } finally {
    await client.close();
  }
  return ok(summarise(config, trajectories));
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
