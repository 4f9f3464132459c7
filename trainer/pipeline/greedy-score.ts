import { z } from "zod";
import { aggregate } from "../../shared/eval-aggregate.js";
import type { ToolSpec } from "../../shared/protocol.js";
import { err, ok, type Result } from "../../shared/result.js";
import { loadPolicy } from "../checkpoint/load-policy.js";
import type { EnvClient } from "../client/env-client.js";
import { firstTasks, outcomeOf, playTasks } from "../eval/play-tasks.js";
import type { RunIO } from "../run/io.js";
import type { Recipe } from "./recipe.js";

/** A checkpoint's greedy result on tasks 0..n−1 of a split (kept in state.json as a segment's validation). */
export const GreedyScore = z.object({
  success: z.number(),
  successes: z.number(),
  n: z.number(),
  failures: z.number(),
});
export type GreedyScore = z.infer<typeof GreedyScore>;

/**
 * One checkpoint plays tasks 0..n−1 of `split` once, greedily, in-process, with the recipe's
 * evaluation step and token limits: the curve's points and the validation that selects the RL
 * checkpoint. As in the hub's aggregate, every task counts: an episode the env could not run fails.
 */
export async function greedyScore(
  checkpoint: string,
  env: { client: EnvClient; tools: readonly ToolSpec[] },
  task: { split: string; n: number },
  limits: Recipe["eval"],
  io: RunIO,
): Promise<Result<GreedyScore>> {
  if (task.n === 0) return err(`no ${task.split} tasks to play`);
  const policy = await loadPolicy(checkpoint, {}, 1, io);
  if (!policy.ok) return policy;
  try {
    const trajectories = await playTasks(policy.value.model, policy.value.tokenizer, env.client, {
      split: task.split,
      tasks: firstTasks(task.n),
      maxSteps: limits.maxSteps,
      maxNewTokens: limits.maxNewTokens,
      tools: env.tools,
    });
    // The success rate only: the env's minimum reward, which a missing task's return would take, is not read.
    const a = aggregate(trajectories.map(outcomeOf), 0);
    const successes = Math.round(a.successRate * a.n);
    return ok({ success: a.successRate, successes, n: task.n, failures: a.n - a.verified });
  } finally {
    policy.value.model.dispose();
  }
}
