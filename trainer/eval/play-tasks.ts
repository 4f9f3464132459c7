import type { TaskOutcome } from "../../shared/eval-aggregate.js";
import type { ToolSpec } from "../../shared/protocol.js";
import type { EnvClient } from "../client/env-client.js";
import { runRollouts } from "../rollout/loop.js";
import type { Generator, StartSession, Trajectory } from "../rollout/types.js";
import type { Tokenizer } from "../tokenizer/types.js";

export type PlayOptions = {
  split: string;
  /** Task indices played, one episode each; an evaluation plays tasks 0..n−1. */
  tasks: readonly number[];
  maxSteps: number;
  maxNewTokens: number;
  /** Most episodes generating together (default 32). */
  maxLive?: number;
  /** 0 (the default) is greedy; `edgegym eval --temperature` may sample. */
  temperature?: number;
  /** Seed of the first generate call (default 1). */
  seed?: number;
  /** A hub evaluation's sessions; the env's own `/v1/sessions` otherwise. */
  start?: StartSession;
  onEpisode?: (t: Trajectory) => void;
  tools?: readonly ToolSpec[];
};

/**
 * One local policy plays each task once, greedily unless told otherwise, with no tools rendered
 * into the prompt: how every evaluation of a local policy plays (`edgegym eval`, the job's hub
 * evaluations, the validation that selects a segment, the learning curve and the learning probe).
 */
export async function playTasks(
  policy: Generator,
  tokenizer: Tokenizer,
  client: EnvClient,
  opts: PlayOptions,
): Promise<Trajectory[]> {
  const { trajectories } = await runRollouts(
    policy,
    tokenizer,
    client,
    {
      split: opts.split,
      tasks: opts.tasks,
      groupSize: 1,
      maxLive: opts.maxLive ?? 32,
      maxSteps: opts.maxSteps,
      maxNewTokens: opts.maxNewTokens,
      temperature: opts.temperature ?? 0,
      topP: 1,
      seed: opts.seed ?? 1,
      renderTools: false,
      ...(opts.start ? { start: opts.start } : {}),
      ...(opts.onEpisode ? { onEpisode: opts.onEpisode } : {}),
    },
    opts.tools,
  );
  return trajectories;
}

/** Tasks 0..n−1. */
export const firstTasks = (n: number) => Array.from({ length: n }, (_, i) => i);

/**
 * A played episode as the aggregate counts it (shared/eval-aggregate.ts): `null` when the env could
 * not run it, so that it is a failure at the env's minimum reward.
 */
export function outcomeOf(t: Trajectory): TaskOutcome {
  if (t.failure !== undefined) return null;
  return {
    return: t.return,
    finalReward: t.steps.at(-1)?.reward ?? 0,
    steps: t.steps.length,
    success: t.success,
  };
}
