import { parseEnvId, parseEnvRef } from "../../shared/env-ref.js";
import { METHODS, type MethodName, resolveMethod } from "../algos/registry.js";
import { distinguishingSettings, fmtDifference, type Group, methodOf, verdict } from "./pool.js";
import type { FinishedRun, ModelSize } from "./run-folders.js";

/** The results table's columns: a label and the hub env (`owner/name`) whose runs fill it. */
export const COLUMNS = [
  { label: "calculator (procedural)", env: "edgegym/calculator" },
  { label: "calculator (GSM8K)", env: "edgegym/calculator-gsm8k" },
  { label: "search (procedural)", env: "edgegym/search" },
  { label: "search (HotpotQA sample)", env: "edgegym/search-hotpotqa" },
  { label: "code", env: "edgegym/code" },
  { label: "webshop (procedural)", env: "edgegym/webshop" },
] as const;

/** The row label of a method: `SFT+` and its registry label, or `SFT+<name>` for a name the registry does not know. */
export const methodLabel = (method: string) => `SFT+${resolveMethod(method)?.label ?? method}`;

/** One measured cell: success rate, mean reward ± its standard error, over n episodes, and where it came from. */
export type Cell = {
  success: number;
  stderr: number;
  reward: number;
  n: number;
  /** Episodes with a verified receipt, when fewer than n: the hub counts the others as failures. */
  verified?: number;
  /** e.g. the hub eval run id or "expert on train tasks 0..n−1". */
  source: string;
};

/** The expert's measured play on one env (the expert refuses the test split, so another split). */
export type ExpertCell = Cell & { env: string; split: string };

/**
 * `success · reward ± se (n)`, with `, k verified` when only k of n episodes ended with a receipt;
 * the hub's standard error is that of the mean reward (return).
 */
export const fmtCell = (c: Cell) =>
  `${c.success.toFixed(3)} · ${c.reward.toFixed(3)} ± ${c.stderr.toFixed(3)} (n=${c.n}${
    c.verified !== undefined && c.verified < c.n ? `, ${c.verified} verified` : ""
  })`;

/** Seeds the learning bar pools: RL beats SFT by 2 s.e. pooled over 3 RL seeds. */
const BAR_SEEDS = 3;

/** A run's evaluated env without its version (`owner/name`), the column it fills. */
const envOf = (r: FinishedRun) => {
  const ref = parseEnvRef(r.recipe.env);
  return ref ? `${ref.owner}/${ref.name}` : r.recipe.env;
};

/**
 * The markdown table: rows expert, SFT and each SFT+RL method some run used (registry order); a column per env of COLUMNS, then one
 * per other env that runs used (an easier level such as `calculator-l1`, by name). A cell is "not run"
 * unless a run folder (or the expert measurement) holds its figure. An RL cell that does not beat the
 * SFT policy of the same run says so. Several runs of one method on one env are all listed, one line
 * each, so a repeat that came out worse is not hidden behind a better one.
 */
export function resultsTable(runs: readonly FinishedRun[], experts: readonly ExpertCell[]): string {
  const known = new Set<string>(COLUMNS.map((c) => c.env));
  const others = [...new Set(runs.map(envOf))].filter((env) => !known.has(env)).sort();
  const columns = [...COLUMNS, ...others.map((env) => ({ label: parseEnvId(env)?.name ?? env, env }))];
  const header = ["method", ...columns.map((c) => c.label)];
  const cellOf = (e: {
    aggregate: { successRate: number; stderr: number; meanReturn: number; n: number; verified: number };
    runId: string;
  }): Cell => ({
    success: e.aggregate.successRate,
    stderr: e.aggregate.stderr,
    reward: e.aggregate.meanReturn,
    n: e.aggregate.n,
    verified: e.aggregate.verified,
    source: e.runId,
  });
  const expertRow = [
    "expert",
    ...columns.map((col) => {
      const x = experts.find((e) => e.env === col.env);
      return x ? `${fmtCell(x)} [${x.split} split]` : "not run";
    }),
  ];
  const sftRow = [
    "SFT",
    ...columns.map((col) => {
      const r = runs.find((run) => envOf(run) === col.env && run.state.evalSft);
      return r?.state.evalSft ? fmtCell(cellOf(r.state.evalSft)) : "not run";
    }),
  ];
  // A row per method of the registry that some run used, in the registry's order.
  const used = new Set(runs.map((r) => methodOf(r.recipe.rl.algorithm)));
  const methods = (Object.keys(METHODS) as MethodName[]).filter((m) => used.has(m));
  const rlRows = methods.map((method) => [
    methodLabel(method),
    ...columns.map((col) => {
      const cells = runs.flatMap((r) => {
        if (envOf(r) !== col.env || methodOf(r.recipe.rl.algorithm) !== method || !r.state.evalRl) return [];
        const rl = cellOf(r.state.evalRl);
        const sft = r.state.evalSft ? cellOf(r.state.evalSft) : undefined;
        const beats = sft !== undefined && rl.success > sft.success;
        return [`${fmtCell(rl)}${sft !== undefined && !beats ? " — does not beat SFT" : ""}`];
      });
      return cells.length > 0 ? cells.join("<br>") : "not run";
    }),
  ]);
  const rows = [header, header.map(() => "---"), expertRow, sftRow, ...rlRows];
  return rows.map((r) => `| ${r.join(" | ")} |`).join("\n");
}

/** A stage's seconds, or where it was adopted from (`--reuse`): that run's seconds, not this one's. */
const seconds = (s: number, from: string | undefined) =>
  from === undefined ? s.toFixed(0) : `adopted from ${from.split("/").at(-1)}`;

/**
 * Per run: recipe, env (`trained on → evaluated on` when they differ), backend and how long each stage
 * took (seconds, as the run recorded them).
 */
export function timingsTable(runs: readonly FinishedRun[]): string {
  const rows = [
    [
      "run folder",
      "recipe",
      "env",
      "backend",
      "SFT s",
      "RL s",
      "eval SFT s",
      "eval RL s",
      "SFT hub run",
      "RL hub run",
      "stopped by",
    ],
  ];
  rows.push(rows[0]?.map(() => "---") ?? []);
  for (const { dir, state, recipe } of runs) {
    const rl = state.segments.reduce((a, s) => a + s.seconds, 0);
    const rlFrom = state.segments.find((s) => s.from !== undefined)?.from;
    rows.push([
      dir,
      state.recipe,
      recipe.trainEnv ? `${recipe.trainEnv} → ${recipe.env}` : recipe.env,
      state.backend ?? "?",
      state.sft ? seconds(state.sft.seconds, state.sft.from) : "-",
      state.segments.length > 0
        ? `${seconds(rl, rlFrom)} (${state.segments.reduce((a, s) => a + s.iterations, 0)} it)`
        : "-",
      state.evalSft ? seconds(state.evalSft.seconds, state.evalSft.from) : "-",
      state.evalRl ? seconds(state.evalRl.seconds, state.evalRl.from) : "-",
      state.evalSft?.runId ?? "-",
      state.evalRl?.runId ?? "-",
      state.failure ? `${state.failure.stage}: ${state.failure.error.replaceAll("|", "/")}` : "",
    ]);
  }
  return rows.map((r) => `| ${r.join(" | ")} |`).join("\n");
}

/** `d 64 × 2 layers, 117k params`. */
export const fmtModel = (m: ModelSize) =>
  `d ${m.dModel} × ${m.nLayers} layers, ${m.params >= 1e6 ? `${(m.params / 1e6).toFixed(2)}M` : `${Math.round(m.params / 1e3)}k`} params`;

/**
 * An SFT checkpoint named from its run folder, `<run>/sft/checkpoints/final`, whichever machine or
 * folder of runs wrote it; a path of another shape is shown as it is.
 */
export function runRelative(checkpoint: string): string {
  const parts = checkpoint.split("/");
  const sft = parts.findLastIndex((p, i) => p === "sft" && parts[i + 1] === "checkpoints");
  return sft > 0 ? parts.slice(sft - 1).join("/") : checkpoint;
}

/** What the pooled section says about an env besides its groups: distinct test tasks, its curve plot. */
export type EnvNote = { lines: string[] };

/**
 * One section per evaluated env, one row per group (an env and method from one SFT policy, seeds
 * pooled): SFT's success (n); the seeds' pooled success ± its standard error (n summed over seeds);
 * the difference to SFT ± the standard error of the difference and whether it is ≥ 2 of them; the
 * same compared task by task when the evaluations recorded their outcomes (`withPaired`); every
 * seed on its own line, unfinished ones with the stage they stopped in; and backend and model size.
 */
export function pooledTables(
  groups: readonly Group[],
  models: ReadonlyMap<string, ModelSize>,
  notes: ReadonlyMap<string, EnvNote> = new Map(),
): string {
  const envs = [...new Set(groups.map((g) => g.env))];
  // Several recipes of one method on an env: each row names the settings that set it apart.
  const settings = (g: Group) => {
    const differing = distinguishingSettings(g, groups);
    return differing === "" ? "" : ` (${differing})`;
  };
  const header = [
    "method",
    "SFT",
    "SFT+RL, seeds pooled",
    "RL − SFT",
    "verdict",
    "paired by task",
    "each seed",
    "backend · model",
    "SFT checkpoint",
  ];
  return envs
    .map((env) => {
      const rows = groups
        .filter((g) => g.env === env)
        .map((g) => {
          const finished = g.seeds.filter((s) => s.rl).length;
          // A gain from fewer seeds than the bar pools says so, so that it is not read as the bar met.
          const judged = (v: Parameters<typeof verdict>[0]) =>
            `${verdict(v)}${v.beats && finished < BAR_SEEDS ? `, from ${finished} finished seed${finished === 1 ? "" : "s"} (the bar pools ${BAR_SEEDS})` : ""}`;
          const model = models.get(g.sftCheckpoint);
          return [
            `${methodLabel(g.method)}${settings(g)}${g.trainEnv ? ` (trained on ${g.trainEnv})` : ""}`,
            g.sft ? `${g.sft.p.toFixed(3)} (n=${g.sft.n})` : "not run",
            g.pooled
              ? `${g.pooled.p.toFixed(3)} ± ${g.pooled.se.toFixed(3)} (n=${g.pooled.n}, ${finished} of ${g.seeds.length} seed${g.seeds.length === 1 ? "" : "s"})`
              : "not run",
            g.vsSft ? fmtDifference(g.vsSft) : "-",
            g.vsSft ? judged(g.vsSft) : "-",
            g.paired
              ? `${fmtDifference(g.paired)} over ${g.paired.clusters} ${g.paired.unit}: ${judged(g.paired)}`
              : "no task-by-task record",
            g.seeds
              .map(
                (s) =>
                  `seed ${s.seed}: ${s.rl ? `${s.rl.p.toFixed(3)} (n=${s.rl.n})` : `not finished${s.stopped ? ` (${s.stopped})` : ""}`} [${s.dir.split("/").at(-1)}]`,
              )
              .join("<br>"),
            `${g.backends.join(", ") || "?"} · ${model ? fmtModel(model) : "model size unknown (no config.json)"}`,
            runRelative(g.sftCheckpoint),
          ].map((c) => c.replaceAll("|", "/"));
        });
      const note = notes.get(env)?.lines ?? [];
      const table = [header, header.map(() => "---"), ...rows].map((r) => `| ${r.join(" | ")} |`);
      return [`### ${env}`, "", ...note.flatMap((l) => [l, ""]), ...table].join("\n");
    })
    .join("\n\n");
}
