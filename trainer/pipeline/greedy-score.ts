import { z } from "zod";
import { err, ok, type Result } from "../../shared/result.js";
import { loadPolicy } from "../checkpoint/load-policy.js";
import type { EnvClient } from "../client/env-client.js";
import { runRollouts } from "../rollout/loop.js";
import type { RunIO } from "../run/run-io.js";
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
  env: { client: EnvClient; tools: Parameters<typeof runRollouts>[4] },
  task: { split: string; n: number },
  limits: Recipe["eval"],
  io: RunIO,
): Promise<Result<GreedyScore>> {
  if (task.n === 0) return err(`no ${task.split} tasks to play`);
  const policy = await loadPolicy(checkpoint, {}, 1, io);
  if (!policy.ok) return policy;
  try {
    const { trajectories } = await runRollouts(
      policy.value.model,
      policy.value.tokenizer,
      env.client,
      {
        split: task.split,
        tasks: Array.from({ length: task.n }, (_, i) => i),
        groupSize: 1,
        maxLive: 32,
        maxSteps: limits.maxSteps,
        maxNewTokens: limits.maxNewTokens,
        temperature: 0,
        topP: 1,
        seed: 1,
        renderTools: false,
      },
      env.tools,
    );
    const successes = trajectories.filter((x) => x.failure === undefined && x.success).length;
    const failures = trajectories.filter((x) => x.failure !== undefined).length;
    return ok({ success: successes / task.n, successes, n: task.n, failures });
  } finally {
    policy.value.model.dispose();
  }
}
