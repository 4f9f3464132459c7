/**
 * Which of tasks 0..n−1 an evaluation solved, as a string of `0`/`1` (task i at position i): the
 * record that lets two policies evaluated on the same tasks be compared task by task.
 */
export type Outcomes = string;

/**
 * The outcomes of a hub evaluation from the episodes it played, or why they can't stand for the hub's
 * count: a task with no episode or two, a receipt the hub rejected, or successes that differ from the
 * hub's aggregate. The hub counts a task without a verified receipt (an episode cut by the step limit)
 * as failed. Every success the hub counted was played as one, so when the counts are equal the played
 * successes are exactly the hub's, and an unverified task is one played as a failure.
 */
export function evalOutcomes(
  trajectories: readonly { task: { index: number }; success: boolean }[],
  hub: { n: number; verified: number; successRate: number; rejected: number },
): { ok: true; value: Outcomes } | { ok: false; error: string } {
  if (hub.rejected > 0) return { ok: false, error: `the hub rejected ${hub.rejected} of ${hub.n} receipts` };
  const solved: (boolean | undefined)[] = Array.from({ length: hub.n }, () => undefined);
  for (const t of trajectories) {
    const i = t.task.index;
    if (i < 0 || i >= hub.n || solved[i] !== undefined)
      return { ok: false, error: `task ${i} played twice or out of range` };
    solved[i] = t.success;
  }
  const missing = solved.indexOf(undefined);
  if (missing >= 0) return { ok: false, error: `task ${missing} has no episode` };
  const outcomes = solved.map((s) => (s ? "1" : "0")).join("");
  const successes = solved.filter(Boolean).length;
  if (successes !== Math.round(hub.successRate * hub.n)) {
    return { ok: false, error: `${successes} successes played, the hub counted ${hub.successRate * hub.n}` };
  }
  return { ok: true, value: outcomes };
}

/**
 * RL − SFT compared task by task: the difference d, its standard error, d/se as k, whether d ≥ 2·se,
 * and over how many distinct tasks.
 */
/** `clusters`: C, how many clusters the n tasks formed (distinct tasks, or what `keys` groups them by). */
export type PairedDifference = { d: number; se: number; k: number; beats: boolean; clusters: number };

/**
 * RL − SFT on the same tasks 0..n−1, paired by task. With o_{s,i} ∈ {0, 1} seed s's outcome on task
 * i (S seeds) and q_i the SFT policy's, d_i = (1/S)·Σ_s o_{s,i} − q_i and d̄ = (1/n)·Σ_i d_i. Indices
 * with equal `keys[i]` are one cluster c: those that show the policy the same task, because a greedy
 * policy plays a repeated task the same way again, or what else their outcomes share (a WebShop
 * goal's product); over the C clusters,
 *
 *   se = sqrt(C/(C−1) · Σ_c (Σ_{i∈c} (d_i − d̄))²) / n
 *
 * (the cluster-robust standard error of a mean). Without keys every index is its own task. Undefined
 * when any evaluation lacks outcomes or they differ in length, or with fewer than two tasks.
 */
export function pairedDifference(
  sft: Outcomes | undefined,
  seeds: readonly (Outcomes | undefined)[],
  keys?: readonly string[],
): PairedDifference | undefined {
  if (sft === undefined || seeds.length === 0) return undefined;
  const n = sft.length;
  const rl: Outcomes[] = [];
  for (const s of seeds) {
    if (s === undefined || s.length !== n) return undefined;
    rl.push(s);
  }
  if (keys !== undefined && keys.length < n) return undefined;
  const d = Array.from({ length: n }, (_, i) => {
    const solvedBy = rl.filter((s) => s[i] === "1").length;
    return solvedBy / rl.length - (sft[i] === "1" ? 1 : 0);
  });
  const mean = d.reduce((a, x) => a + x, 0) / n;
  const clusters = new Map<string, number>();
  d.forEach((x, i) => {
    const key = keys?.[i] ?? String(i);
    clusters.set(key, (clusters.get(key) ?? 0) + (x - mean));
  });
  const c = clusters.size;
  if (c < 2) return undefined;
  const ss = [...clusters.values()].reduce((a, s) => a + s * s, 0);
  const se = Math.sqrt((c / (c - 1)) * ss) / n;
  const k = se > 0 ? mean / se : mean > 0 ? Number.POSITIVE_INFINITY : 0;
  return { d: mean, se, k, beats: se > 0 ? mean >= 2 * se : mean > 0, clusters: c };
}
