import { and, eq, or } from "drizzle-orm";
import { hubEvalRuns } from "../../shared/db/schema.js";
import type { Aggregate } from "../../shared/eval-aggregate.js";
import type { HubDb } from "../db.js";
import type { EnvRow } from "../registry/access.js";
import { runVisible } from "./runs.js";

/** Fewest tasks a run must cover to enter a leaderboard, unless HUB_LEADERBOARD_MIN_TASKS says otherwise. */
export const DEFAULT_MIN_TASKS = 10;

export type LeaderboardEntry = Aggregate & {
  rank: number;
  model: string;
  runId: string;
  team: string;
  contentHash: string;
  finishedAt: string;
};

/** Orders by mean return, then success rate, then the earlier finish (first to reach a score keeps it). */
function better(a: Aggregate & { finishedAt: Date }, b: Aggregate & { finishedAt: Date }): boolean {
  if (a.meanReturn !== b.meanReturn) return a.meanReturn > b.meanReturn;
  if (a.successRate !== b.successRate) return a.successRate > b.successRate;
  return a.finishedAt < b.finishedAt;
}

/**
 * The best finished run per model on one version and split, among the runs `team` may see that cover
 * at least `minTasks` tasks with at least one verified episode: the API's leaderboard and the web's.
 */
export async function leaderboardOf(
  db: HubDb,
  q: { env: EnvRow; version: string; split: string; minTasks: number; team: string | null },
): Promise<LeaderboardEntry[]> {
  const { env, team } = q;
  const visible =
    team === null
      ? eq(hubEvalRuns.public, true)
      : or(eq(hubEvalRuns.public, true), eq(hubEvalRuns.team, team));
  const runs = await db
    .select()
    .from(hubEvalRuns)
    .where(
      and(
        eq(hubEvalRuns.envId, env.id),
        eq(hubEvalRuns.version, q.version),
        eq(hubEvalRuns.split, q.split),
        eq(hubEvalRuns.status, "finished"),
        visible,
      ),
    );
  const best = new Map<string, { run: (typeof runs)[number]; agg: Aggregate & { finishedAt: Date } }>();
  for (const run of runs) {
    const agg = run.aggregate as Aggregate | null;
    if (!agg || !run.finishedAt || agg.n < q.minTasks || agg.verified === 0 || !runVisible(run, env, team))
      continue;
    const cand = { run, agg: { ...agg, finishedAt: run.finishedAt } };
    const cur = best.get(run.modelName);
    if (!cur || better(cand.agg, cur.agg)) best.set(run.modelName, cand);
  }
  return [...best.values()]
    .sort((a, b) => (better(a.agg, b.agg) ? -1 : 1))
    .map(({ run, agg }, i) => ({
      rank: i + 1,
      model: run.modelName,
      runId: run.id,
      team: run.team,
      contentHash: run.contentHash,
      n: agg.n,
      verified: agg.verified,
      meanReturn: agg.meanReturn,
      successRate: agg.successRate,
      stderr: agg.stderr,
      meanSteps: agg.meanSteps,
      finishedAt: agg.finishedAt.toISOString(),
    }));
}

/** The leaderboard's task floor: the query's, else the hub's setting, never below 1. */
export function minTasksOf(asked: number | undefined, setting: string | undefined): number {
  return Math.max(asked ?? Number(setting ?? DEFAULT_MIN_TASKS), 1);
}
