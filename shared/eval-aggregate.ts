import type { EvalAggregate } from "./evals.js";
import { claimedSuccess } from "./success.js";

/**
 * The figures of an evaluation, computed in this one place: the hub's aggregate of a run, the
 * trainer's local evaluation table, the pipeline's greedy plays and `npm run results` all count
 * the same way, so a figure means the same wherever it is printed.
 */

/**
 * One task's outcome; `null` when no verified episode arrived for it. `success` is the verified
 * receipt's claim; without it (receipts signed before envs reported success) a positive final
 * reward counts, the hub's rule before.
 */
export type TaskOutcome = { return: number; finalReward: number; steps: number; success?: boolean } | null;

export type Aggregate = EvalAggregate;

/** The mean of `values` and its standard error, sample std / sqrt(n) (0 when n ≤ 1; mean 0 when empty). */
export function meanStderr(values: readonly number[]): { mean: number; stderr: number } {
  const n = values.length;
  if (n === 0) return { mean: 0, stderr: 0 };
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const ss = values.reduce((a, r) => a + (r - mean) ** 2, 0);
  return { mean, stderr: n > 1 ? Math.sqrt(ss / (n - 1)) / Math.sqrt(n) : 0 };
}

/**
 * Aggregates a run over its whole task set `[n]`. A task without a verified episode counts as a
 * failure with return `missingReturn` (the env's minimum reward), so dropping bad episodes or
 * retrying until lucky cannot raise the score.
 *
 *   r_i = return_i or missingReturn;  mean = Σ r_i / n;  stderr = sqrt(Σ (r_i − mean)² / (n − 1)) / sqrt(n)
 */
export function aggregate(outcomes: readonly TaskOutcome[], missingReturn: number): Aggregate {
  const n = outcomes.length;
  if (n === 0) return { n: 0, verified: 0, meanReturn: 0, successRate: 0, stderr: 0, meanSteps: null };
  const { mean, stderr } = meanStderr(outcomes.map((o) => (o ? o.return : missingReturn)));
  const done = outcomes.filter((o): o is NonNullable<TaskOutcome> => o !== null);
  const successes = done.filter((o) => claimedSuccess(o)).length;
  return {
    n,
    verified: done.length,
    meanReturn: mean,
    successRate: successes / n,
    stderr,
    meanSteps: done.length > 0 ? done.reduce((a, o) => a + o.steps, 0) / done.length : null,
  };
}

/** A success rate over n episodes, as a count and its binomial standard error. */
export type Rate = { successes: number; n: number; p: number; se: number };

/**
 * `successes` of `n` with its binomial standard error sqrt(p(1−p)/n): the rate of pooled seeds,
 * whose n is the sum of theirs.
 */
export function rate(successes: number, n: number): Rate {
  const p = n > 0 ? successes / n : 0;
  return { successes, n, p, se: n > 0 ? Math.sqrt((p * (1 - p)) / n) : 0 };
}
