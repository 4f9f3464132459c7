import { z } from "zod";
import { err, ok, type Result } from "../../shared/result.js";
import { BACKENDS } from "../policy/types.js";
import { runRollouts } from "../rollout/loop.js";
import type { Trajectory } from "../rollout/types.js";
import { openAIClient, runRemoteEpisodes } from "./openai-policy.js";
import { connectEnv, loadPolicy, type RunIO, startBackend } from "./session.js";
import { episodeMetrics } from "./summary.js";

/** `edgegym eval`: a policy on a split's first n tasks, one episode each. */
export const EvalConfig = z.object({
  /** `--env`: an env URL, `hub://owner/name@version` or `local:<name>`. */
  env: z.string(),
  /** A checkpoint folder, or `openai:<baseURL>` for a remote OpenAI-compatible model. */
  policy: z.string(),
  /** Model name sent to the remote server (`openai:` policies only). */
  model: z.string().default("default"),
  split: z.string().default("test"),
  /** Tasks 0..n−1 of the split. */
  n: z.number().int().positive().default(100),
  maxSteps: z.number().int().positive().default(6),
  maxNewTokens: z.number().int().positive().default(64),
  /** 0 is greedy decoding. */
  temperature: z.number().nonnegative().default(0),
  seed: z.number().int().default(1),
  backend: z.enum(BACKENDS).optional(),
  /** Episodes in flight at once. */
  concurrency: z.number().int().positive().default(32),
});
export type EvalConfig = z.infer<typeof EvalConfig>;

export type EvalSummary = {
  env: string;
  policy: string;
  split: string;
  episodes: number;
  success: number;
  reward: number;
  steps: number;
  toolCalls: number;
  infraFailures: number;
};

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

/** The summary as an aligned two-column text table. */
export function formatEvalTable(s: EvalSummary): string {
  const rows: [string, string][] = [
    ["env", s.env],
    ["policy", s.policy],
    ["split", s.split],
    ["episodes", String(s.episodes)],
    ["success rate", s.success.toFixed(3)],
    ["mean reward", s.reward.toFixed(3)],
    ["mean steps", s.steps.toFixed(2)],
    ["mean tool calls", s.toolCalls.toFixed(2)],
    ["infra failures", String(s.infraFailures)],
  ];
  const w = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join("\n");
}
