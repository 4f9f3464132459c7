import { claimedSuccess } from "../../shared/success.js";

/**
 * One task's outcome; `null` when no verified episode arrived for it. `success` is the verified
 * receipt's claim; without it (receipts signed before envs reported success) a positive final
 * reward counts, the hub's rule before.
 */
export type TaskOutcome = { return: number; finalReward: number; steps: number; success?: boolean } | null;

export type Aggregate = {
  /** Tasks in the run's fixed set. */
  n: number;
  /** Tasks with a verified episode. */
  verified: number;
  meanReturn: number;
  /** Share of tasks whose env reported success (see {@link TaskOutcome}). */
  successRate: number;
  /** Standard error of the mean return: sample std / sqrt(n); 0 when n = 1. */
  stderr: number;
  /** Mean steps over verified episodes; null when there are none. */
  meanSteps: number | null;
};

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
  const returns = outcomes.map((o) => (o ? o.return : missingReturn));
  const mean = returns.reduce((a, b) => a + b, 0) / n;
  const ss = returns.reduce((a, r) => a + (r - mean) ** 2, 0);
  const stderr = n > 1 ? Math.sqrt(ss / (n - 1)) / Math.sqrt(n) : 0;
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
