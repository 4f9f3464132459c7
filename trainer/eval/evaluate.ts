import type { z } from "zod";
import { formatEnvRef, parseHubEnv } from "../../shared/env-ref.js";
import { aggregate } from "../../shared/eval-aggregate.js";
import { err, ok, type Result } from "../../shared/result.js";
import { startBackend } from "../backend/start-backend.js";
import { loadPolicy } from "../checkpoint/load-policy.js";
import { connectEnv } from "../client/connect-env.js";
import { hubFromEnv } from "../client/credentials.js";
import type { EnvClient } from "../client/env-client.js";
import { parseConfig } from "../config/parse-config.js";
import { emptySplitReason } from "../rollout/split-check.js";
import type { StartSession, Trajectory } from "../rollout/types.js";
import type { RunIO } from "../run/io.js";
import { EvalConfig, type EvalSummary, leaderboardName } from "./config.js";
import { evaluateOnHub } from "./hub-eval.js";
import { openAIClient, runRemoteEpisodes } from "./openai-policy.js";
import { writeEvalRun } from "./output.js";
import { firstTasks, outcomeOf, playTasks } from "./play-tasks.js";
import { failureLines } from "./policy-failure.js";
import { describeToolFormat } from "./tool-format.js";

/**
 * Runs the evaluation and summarises it (see `formatEvalTable`). With `upload`, it runs as a hub
 * evaluation: the hub creates the run over tasks 0..n−1, issues every session, and its verdict on
 * the uploaded receipts is added to the summary. With `out`, results.json and trajectories.jsonl are
 * written there. `onEpisode` is told how many episodes have ended (progress).
 */
export async function runEval(
  input: z.input<typeof EvalConfig>,
  io: RunIO,
  env = process.env,
  onEpisode: (done: number, total: number) => void = () => {},
): Promise<Result<EvalSummary>> {
  const parsed = parseConfig(EvalConfig, input);
  if (!parsed.ok) return parsed;
  const config = parsed.value;
  const ref = parseHubEnv(config.env);
  const target = ref ? formatEnvRef(ref) : undefined;
  if (config.upload && target === undefined) return err("--upload needs a hub://owner/name@version env");
  const connected = await connectEnv(config.env, config.concurrency, env);
  if (!connected.ok) return connected;
  const { client, manifest } = connected.value;
  const tasks = firstTasks(Math.min(config.n, manifest.splits[config.split] ?? 0));
  try {
    if (tasks.length === 0) return err(await emptySplitReason(client, manifest, config.split));
    let ended = 0;
    const progress = () => onEpisode(++ended, tasks.length);
    const play = (start?: StartSession) => runEpisodes(config, io, client, manifest, tasks, start, progress);
    if (!config.upload || target === undefined) {
      const episodes = await play();
      if (!episodes.ok) return episodes;
      const summary = summarise(config, episodes.value, manifest.reward.min);
      if (config.out !== undefined) await writeEvalRun(config.out, config, summary, episodes.value);
      return ok(summary);
    }
    const body = {
      env: target,
      split: config.split,
      tasks: { indices: tasks },
      model: { name: leaderboardName(config) },
    };
    const evaluated = await evaluateOnHub(hubFromEnv(env), body, (run) => {
      io.log(`hub evaluation run: ${run.id}`);
      return play(run.start);
    });
    if (!evaluated.ok) return evaluated;
    const { runId, trajectories, uploaded, aggregate } = evaluated.value;
    const summary: EvalSummary = {
      ...summarise(config, trajectories, manifest.reward.min),
      hub: {
        run: runId,
        ...uploaded,
        verified: aggregate?.verified ?? 0,
        successRate: aggregate?.successRate ?? 0,
      },
    };
    if (config.out !== undefined) await writeEvalRun(config.out, config, summary, trajectories);
    return ok(summary);
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
  onEpisode: () => void,
): Promise<Result<Trajectory[]>> {
  const common = {
    split: config.split,
    tasks,
    maxSteps: config.maxSteps,
    onEpisode,
    ...(start ? { start } : {}),
  };
  if (config.policy.startsWith("openai:")) {
    const openai = openAIClient(config.policy.slice("openai:".length), {
      timeoutMs: config.timeoutMs,
      retries: config.retries,
    });
    io.log(describeToolFormat(config.toolFormat));
    return ok(
      await runRemoteEpisodes(openai, config.model ?? "default", client, manifest, {
        ...common,
        concurrency: config.concurrency,
        temperature: config.temperature,
        maxTokens: config.maxNewTokens,
        toolFormat: config.toolFormat,
        timeoutMs: config.timeoutMs,
      }),
    );
  }
  const backend = await startBackend(config.backend, io);
  if (!backend.ok) return backend;
  const policy = await loadPolicy(config.policy, {}, config.seed, io);
  if (!policy.ok) return policy;
  return ok(
    await playTasks(policy.value.model, policy.value.tokenizer, client, {
      ...common,
      maxLive: config.concurrency,
      maxNewTokens: config.maxNewTokens,
      temperature: config.temperature,
      seed: config.seed,
      tools: manifest.tools,
    }),
  );
}

/**
 * The local table's figures, counted as the hub's aggregate counts them (shared/eval-aggregate.ts):
 * every task is in the denominator, and an episode that failed for infrastructure is a failure with
 * the env's minimum reward, so a server that errors on some calls cannot raise the success rate.
 * Steps and tool calls are means over the episodes that ran.
 */
export function summarise(
  config: Pick<EvalConfig, "env" | "policy" | "split">,
  t: readonly Trajectory[],
  minReward: number,
): EvalSummary {
  const ran = t.filter((x) => x.failure === undefined);
  const a = aggregate(t.map(outcomeOf), minReward);
  return {
    env: config.env,
    policy: config.policy,
    split: config.split,
    episodes: a.n,
    success: a.successRate,
    reward: a.meanReturn,
    steps: a.meanSteps ?? 0,
    toolCalls:
      ran.length === 0
        ? 0
        : ran.reduce((a, x) => a + x.steps.reduce((b, s) => b + s.toolCalls, 0), 0) / ran.length,
    infraFailures: a.n - a.verified,
    failures: failureLines(t),
  };
}
