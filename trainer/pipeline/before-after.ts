import { join } from "node:path";
import type { JobState } from "./plan.js";

/** A hub aggregate's mean reward ± its standard error (the hub's stderr is that of the mean return). */
const pm = (mean: number, se: number) => `${mean.toFixed(3)} ± ${se.toFixed(3)}`;

/**
 * The main job's closing table: each policy's hub evaluation (success rate, mean reward ± standard
 * error, n and verified receipts, the hub run), then where the run's files are.
 */
export function beforeAfter(
  state: JobState,
  runDir: string,
  hubUrl: string,
  env: string,
  split: string,
): string {
  const rows = [
    ["policy", "success", "mean reward ± se", "n", "verified", "hub eval run"],
    ...[state.evalSft, state.evalRl].flatMap((e) =>
      e
        ? [
            [
              e.model,
              e.aggregate.successRate.toFixed(3),
              pm(e.aggregate.meanReturn, e.aggregate.stderr),
              String(e.aggregate.n),
              String(e.aggregate.verified),
              e.runId,
            ],
          ]
        : [],
    ),
  ];
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length))) ?? [];
  const table = rows.map((r) =>
    r
      .map((cell, c) => cell.padEnd(widths[c] ?? 0))
      .join("  ")
      .trimEnd(),
  );
  const last = state.segments.at(-1);
  const [owner, rest] = env.split("/") as [string, string];
  const [name, version] = rest.split("@") as [string, string];
  const delta =
    state.evalSft && state.evalRl
      ? state.evalRl.aggregate.successRate - state.evalSft.aggregate.successRate
      : undefined;
  return [
    ...table.slice(0, 1),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...table.slice(1),
    ...(delta === undefined ? [] : [`RL − SFT success: ${delta >= 0 ? "+" : ""}${delta.toFixed(3)}`]),
    "",
    `run folder:  ${runDir}`,
    `plot:        ${join(runDir, "rl", "report.png")} (and .svg)`,
    `checkpoint:  ${last ? join(last.dir, "checkpoints", "final") : "-"} (SFT: ${state.sft?.checkpoint ?? "-"})`,
    `leaderboard: ${hubUrl}/v1/envs/${owner}/${name}/leaderboard?version=${version}&split=${split} (npm run dev serves it again)`,
  ].join("\n");
}
