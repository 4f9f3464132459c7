import type { ClientStats } from "../client/env-client.js";
import type { Tokenizer } from "../tokenizer/types.js";
import type { TrajectoryLine } from "./trajectory-line.js";
import type { RolloutStats, Trajectory } from "./types.js";

const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

/**
 * Episode metrics of a set of rollouts. Infrastructure failures are counted on their own and left out
 * of the reward means: an unreachable env is not a wrong answer.
 */
export function episodeMetrics(trajectories: readonly Trajectory[]): Record<string, number> {
  const scored = trajectories.filter((t) => t.failure === undefined);
  return {
    "reward/mean": mean(scored.map((t) => t.return)),
    "reward/success": mean(scored.map((t) => (t.success ? 1 : 0))),
    "episode/steps": mean(scored.map((t) => t.steps.length)),
    "episode/tool_calls": mean(scored.map((t) => t.steps.reduce((a, s) => a + s.toolCalls, 0))),
    "episode/truncated": mean(scored.map((t) => (t.truncated ? 1 : 0))),
    "episode/response_tokens": mean(scored.map((t) => t.steps.reduce((a, s) => a + s.responseIds.length, 0))),
    "episode/count": trajectories.length,
    "episode/infra_failures": trajectories.length - scored.length,
  };
}

/** Throughput of the rollout phase and the env client's retry counters. */
export function rolloutPerf(stats: RolloutStats, client: ClientStats): Record<string, number> {
  const retries = Object.values(client.retries).reduce((a, b) => a + b, 0);
  return {
    "perf/sample_tokens_per_s": stats.sampleSeconds > 0 ? stats.sampledTokens / stats.sampleSeconds : 0,
    "perf/env_steps_per_s": stats.envSeconds > 0 ? stats.envSteps / stats.envSeconds : 0,
    "env/retries": retries,
    "env/requests": client.requests,
  };
}

/**
 * A trajectory as one readable trajectories.jsonl line (`TrajectoryLine`, trajectory-line.ts): text
 * per step beside the exact ids.
 */
export function trajectoryLine(iteration: number, t: Trajectory, tokenizer: Tokenizer): string {
  const line: TrajectoryLine = {
    iteration,
    episode: t.episode,
    group: t.group,
    task: t.task,
    return: t.return,
    success: t.success,
    truncated: t.truncated,
    ...(t.failure ? { failure: t.failure } : {}),
    steps: t.steps.map((s) => ({
      step: s.step,
      prompt: tokenizer.decode(s.promptIds, { keepControl: true }),
      response: tokenizer.decode(s.responseIds, { keepControl: true }),
      reward: s.reward,
      done: s.done,
      truncated: s.truncated,
      promptIds: s.promptIds,
      responseIds: s.responseIds,
      responseLogprobs: s.responseLogprobs.map((x) => Math.round(x * 1e4) / 1e4),
    })),
  };
  return JSON.stringify(line);
}
