import { type Rate, rate } from "../../shared/eval-aggregate.js";
import { resolveMethod } from "../algos/registry.js";
import { type PairedDifference, pairedDifference } from "../pipeline/paired.js";
import type { TaskClusters } from "./distinct-tasks.js";
import type { FinishedRun } from "./run-folders.js";

/**
 * A method name as a run recorded it, read as today's through the registry's aliases (runs before the
 * method registry wrote PPO as its advantage estimator, `"gae"`); a name the registry does not know
 * is kept as it is.
 */
export const methodOf = (algorithm: string) => resolveMethod(algorithm)?.name ?? algorithm;

/** The hub's success rate times n, as the whole number of episodes it counted solved. */
const solved = (successRate: number, n: number) => Math.round(successRate * n);

/** RL minus SFT, the standard error of that difference, and how many of them it is. */
export type Difference = { d: number; se: number; k: number; beats: boolean };

/**
 * p_rl − p_sft with the standard error of a difference of independent proportions,
 * sqrt(p1(1−p1)/n1 + p2(1−p2)/n2); RL beats SFT when the difference is at least 2 of them (with a
 * zero standard error, both rates are 0 or 1 and any positive difference beats).
 */
export function difference(rl: Rate, sft: Rate): Difference {
  const d = rl.p - sft.p;
  const se = Math.sqrt(rl.se ** 2 + sft.se ** 2);
  const k = se > 0 ? d / se : d > 0 ? Number.POSITIVE_INFINITY : 0;
  return { d, se, k, beats: se > 0 ? d >= 2 * se : d > 0 };
}

/** One RL seed of a group: its run folder and its own hub evaluation (undefined until it finished). */
export type SeedRun = { dir: string; seed: number; rl?: Rate & { runId: string }; stopped?: string };

/** Runs of one env and method from one SFT policy that differ only in the RL seed. */
export type Group = {
  /** The evaluated env (`owner/name@version`) and, when training ran elsewhere, that env. */
  env: string;
  trainEnv?: string;
  method: string;
  /** The SFT checkpoint every seed started from. */
  sftCheckpoint: string;
  sft?: Rate & { runId: string };
  seeds: SeedRun[];
  /** Over every finished seed's episodes: n is the sum of the seeds' n. */
  pooled?: Rate;
  vsSft?: Difference;
  /**
   * RL − SFT task by task (`withPaired`), when SFT and every finished seed recorded their outcomes;
   * `unit` names its clusters ("tasks", or the env's `taskCluster`, "products").
   */
  paired?: PairedDifference & { unit: string };
  backends: string[];
  runs: FinishedRun[];
};

/**
 * RL fields that say how a run used the machine or what it logged, not what it learned: seeds that
 * differ only in these are still one experiment (the worker count does not change the outputs).
 */
const RESOURCE_FIELDS = ["backend", "workers", "memoryBudgetMiB", "logTrajectories", "checkpointEvery"];

/** A run's RL settings but the seed, the method and the resource fields. */
function learningSettings(r: FinishedRun): Record<string, unknown> {
  const { seed: _seed, algorithm: _algorithm, ...all } = r.recipe.rl;
  return Object.fromEntries(Object.entries(all).filter(([k]) => !RESOURCE_FIELDS.includes(k)));
}

/**
 * What must be equal for two runs to be seeds of one experiment: the evaluated env, the method, the
 * SFT policy itself (its checkpoint folder: `--reuse` adopts the source run's, so every seed names
 * the same one), and every RL, segment and evaluation setting but the seed and the resource fields.
 */
function groupKey(r: FinishedRun): string {
  const { algorithm } = r.recipe.rl;
  return JSON.stringify({
    env: r.recipe.env,
    trainEnv: r.recipe.trainEnv,
    method: methodOf(algorithm),
    sft: r.state.sft?.checkpoint,
    rl: learningSettings(r),
    segment: r.recipe.segment,
    eval: r.recipe.eval,
  });
}

/** The runs with an SFT stage, grouped by `groupKey`, each group's seeds pooled and compared with SFT. */
export function poolSeeds(runs: readonly FinishedRun[]): Group[] {
  const byKey = new Map<string, FinishedRun[]>();
  for (const r of runs) {
    if (!r.state.sft) continue;
    const key = groupKey(r);
    byKey.set(key, [...(byKey.get(key) ?? []), r]);
  }
  const groups = [...byKey.values()].map((members) => {
    const first = members[0] as FinishedRun;
    const evalSft = members.find((r) => r.state.evalSft)?.state.evalSft;
    const seeds: SeedRun[] = members
      .map((r): SeedRun => {
        const e = r.state.evalRl;
        const stopped = r.state.failure ? `${r.state.failure.stage}: ${r.state.failure.error}` : undefined;
        return {
          dir: r.dir,
          seed: r.recipe.rl.seed,
          ...(e
            ? {
                rl: {
                  ...rate(solved(e.aggregate.successRate, e.aggregate.n), e.aggregate.n),
                  runId: e.runId,
                },
              }
            : {}),
          ...(stopped !== undefined ? { stopped } : {}),
        };
      })
      .sort((a, b) => a.seed - b.seed || a.dir.localeCompare(b.dir));
    const done = seeds.flatMap((s) => (s.rl ? [s.rl] : []));
    const pooled =
      done.length > 0
        ? rate(
            done.reduce((a, s) => a + s.successes, 0),
            done.reduce((a, s) => a + s.n, 0),
          )
        : undefined;
    const sft = evalSft
      ? {
          ...rate(solved(evalSft.aggregate.successRate, evalSft.aggregate.n), evalSft.aggregate.n),
          runId: evalSft.runId,
        }
      : undefined;
    const group: Group = {
      env: first.recipe.env,
      ...(first.recipe.trainEnv ? { trainEnv: first.recipe.trainEnv } : {}),
      method: methodOf(first.recipe.rl.algorithm),
      sftCheckpoint: first.state.sft?.checkpoint ?? "",
      ...(sft ? { sft } : {}),
      seeds,
      ...(pooled ? { pooled } : {}),
      ...(pooled && sft ? { vsSft: difference(pooled, sft) } : {}),
      backends: [...new Set(members.flatMap((r) => (r.state.backend ? [r.state.backend] : [])))].sort(),
      runs: members,
    };
    return group;
  });
  return groups.sort((a, b) => a.env.localeCompare(b.env) || a.method.localeCompare(b.method));
}

/**
 * The RL settings that tell `g` apart from the other groups of its env and method from the same SFT
 * policy (`klCoef 0, tasksPerIteration 16`), each with `g`'s value; "" when it is the only one (rows
 * from other SFT policies differ in their SFT checkpoint column).
 */
export function distinguishingSettings(g: Group, groups: readonly Group[]): string {
  const own = g.runs[0];
  const others = groups
    .filter((o) => o !== g && o.env === g.env && o.method === g.method && o.sftCheckpoint === g.sftCheckpoint)
    .flatMap((o) => o.runs.slice(0, 1));
  if (!own || others.length === 0) return "";
  const mine = learningSettings(own);
  const theirs = others.map(learningSettings);
  const keys = [...new Set([mine, ...theirs].flatMap((x) => Object.keys(x)))];
  return keys
    .filter((k) => theirs.some((t) => JSON.stringify(t[k]) !== JSON.stringify(mine[k])))
    .map((k) => `${k} ${JSON.stringify(mine[k]) ?? "unset"}`)
    .join(", ");
}

/** The evaluation setting a run's figures are over: env, split and task count. */
export const evalSetting = (r: FinishedRun) => `${r.recipe.env} ${r.recipe.eval.split} ${r.recipe.eval.n}`;

/**
 * The group with its paired comparison ({@link pairedDifference}): the SFT evaluation's outcomes and
 * those of every seed that finished, clustered by `clusters` of its evaluation setting (task i's key
 * at position i, and what the keys are) when known, else by task index.
 */
export function withPaired(g: Group, clusters: ReadonlyMap<string, TaskClusters>): Group {
  const first = g.runs[0];
  if (!first || !g.sft) return g;
  const sftRunId = g.sft.runId;
  const sft = g.runs.map((r) => r.state.evalSft).find((e) => e?.runId === sftRunId && e.outcomes)?.outcomes;
  const seeds = g.runs.flatMap((r) => (r.state.evalRl ? [r.state.evalRl.outcomes] : []));
  const c = clusters.get(evalSetting(first));
  const paired = pairedDifference(sft, seeds, c?.keys);
  return paired ? { ...g, paired: { ...paired, unit: c?.unit ?? "tasks" } } : g;
}

/** "beats SFT by 2.3 s.e." or "does not beat SFT (0.4 s.e.)". */
export function verdict(v: Difference | PairedDifference): string {
  // `+ 0` turns a −0.0 that rounding leaves (a difference of −1e−16) into 0.0.
  const k = Number.isFinite(v.k) ? `${(Number(v.k.toFixed(1)) + 0).toFixed(1)} s.e.` : "s.e. 0";
  return v.beats ? `beats SFT by ${k}` : `does not beat SFT (${k})`;
}

/** `+0.050 ± 0.024`: a difference and its standard error, signed. */
export const fmtDifference = (v: Difference | PairedDifference) =>
  `${Number(v.d.toFixed(3)) >= 0 ? "+" : "−"}${Math.abs(v.d).toFixed(3)} ± ${v.se.toFixed(3)}`;
