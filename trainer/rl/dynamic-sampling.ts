import { emptyRolloutStats } from "../rollout/loop.js";
import type { RolloutStats, Trajectory } from "../rollout/types.js";

/** How an iteration gathers its training groups. */
export type DynamicSamplingOptions = {
  /** Groups an iteration trains on (`tasksPerIteration`). */
  tasks: number;
  /** Keep only informative groups and roll out more tasks for them (`filterGroups`). */
  filter: boolean;
  /** Most rollout rounds of `tasks` tasks each (`filterRounds`). */
  maxRounds: number;
  /** The episode's score as the update's advantage estimator sees it (targets.ts `episodeScore`). */
  score: (t: Trajectory) => number;
};

/** One round's rollouts: round r (from 0) draws its own tasks and sampling seed. */
export type RolloutRound = (round: number) => Promise<{ trajectories: Trajectory[]; stats: RolloutStats }>;

export type IterationSample = {
  /** Every rollout of every round, groups and episodes numbered across rounds. */
  all: Trajectory[];
  /** What the update trains on: `all` without filtering, else at most `tasks` informative groups. */
  train: Trajectory[];
  /** Summed over the rounds. */
  stats: RolloutStats;
  /** `filter/*` metrics when filtering: rounds rolled out, groups kept, informative share of groups. */
  metrics: Record<string, number>;
};

/**
 * The groups of a round worth training on: at least two rollouts the env answered, whose scores
 * differ. Under a group baseline (GRPO, Dr.GRPO, RLOO) every other group has advantage 0 on every
 * token, so it adds nothing to the gradient but its tokens to the token-mean's denominator.
 */
export function informativeGroups(
  trajectories: readonly Trajectory[],
  score: (t: Trajectory) => number,
): Trajectory[][] {
  const groups = new Map<number, Trajectory[]>();
  for (const t of trajectories) {
    if (t.failure !== undefined || t.steps.length === 0) continue;
    groups.set(t.group, [...(groups.get(t.group) ?? []), t]);
  }
  return [...groups.values()].filter((g) => g.length > 1 && new Set(g.map(score)).size > 1);
}

/**
 * DAPO's dynamic sampling (Yu et al. 2025): roll out rounds of `tasks` tasks until `tasks`
 * informative groups are kept or `maxRounds` rounds are spent, and train on the first `tasks` of
 * them. When a policy already solves most tasks every time, this keeps each update's batch full of
 * tasks it sometimes fails, instead of shrinking its signal. Without `filter` it is one round, as
 * before.
 */
export async function sampleIteration(
  opts: DynamicSamplingOptions,
  roll: RolloutRound,
): Promise<IterationSample> {
  const all: Trajectory[] = [];
  const kept: Trajectory[][] = [];
  const stats = emptyRolloutStats();
  const rounds = opts.filter ? opts.maxRounds : 1;
  let round = 0;
  let groupsSeen = 0;
  let informative = 0;
  while (round < rounds && (!opts.filter || kept.length < opts.tasks)) {
    const out = await roll(round);
    for (const key of Object.keys(stats) as (keyof RolloutStats)[]) stats[key] += out.stats[key];
    // Rounds number their groups and episodes from 0; offsets keep them distinct across rounds.
    const renumbered = out.trajectories.map((t) => ({
      ...t,
      group: t.group + groupsSeen,
      episode: t.episode + all.length,
    }));
    all.push(...renumbered);
    groupsSeen += new Set(out.trajectories.map((t) => t.group)).size;
    const useful = informativeGroups(renumbered, opts.score);
    informative += useful.length;
    kept.push(...useful);
    round++;
  }
  if (!opts.filter) return { all, train: all, stats, metrics: {} };
  return {
    all,
    train: kept.slice(0, opts.tasks).flat(),
    stats,
    metrics: {
      "filter/rounds": round,
      "filter/kept_groups": Math.min(kept.length, opts.tasks),
      "filter/informative_frac": informative / Math.max(1, groupsSeen),
    },
  };
}
