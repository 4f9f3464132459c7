import type { Command } from "commander";
import { HubError, hubJson } from "../../hub/client.js";
import { parseEnvId } from "../../shared/env-ref.js";
import type { EvalRun, Leaderboard } from "../../shared/evals.js";
import type { HubFlags } from "../client/credentials.js";
import { action, hubApi } from "./hub-client.js";
import { hubOptions } from "./hub-options.js";

/** `owner/name` or `owner/name@version`. */
export function envRef(ref: string): { owner: string; name: string; version?: string } {
  const id = parseEnvId(ref);
  if (!id) throw new HubError(`expected owner/name or owner/name@version, got ${ref}`);
  return id;
}

/** Rows as columns padded to their widest cell. */
export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

const f3 = (x: number) => x.toFixed(3);

export function formatLeaderboard(b: Leaderboard): string {
  const head = `${b.env}@${b.version}, split ${b.split}: best finished run per model over at least ${b.minTasks} tasks`;
  if (b.entries.length === 0) {
    return `${head}\n(no entries: no finished run with a verified episode covers ${b.minTasks} or more tasks; --min-tasks lowers the floor)`;
  }
  const rows = [
    ["rank", "model", "success", "mean return", "± stderr", "tasks", "verified", "team", "run"],
    ...b.entries.map((e) => [
      String(e.rank),
      e.model,
      f3(e.successRate),
      f3(e.meanReturn),
      f3(e.stderr),
      String(e.n),
      String(e.verified),
      e.team,
      e.runId,
    ]),
  ];
  return `${head}\n${table(rows)}`;
}

export function formatRun(r: EvalRun): string {
  const a = r.aggregate;
  const lines = [
    ["run", r.id],
    ["env", `${r.env}@${r.version} (${r.contentHash})`],
    ["split", `${r.split}, ${r.tasks.length} tasks`],
    ["model", String(r.model.name ?? "")],
    ["team", `${r.team}${r.public ? ", public" : ""}`],
    ["status", `${r.status}, created ${r.createdAt}${r.finishedAt ? `, finished ${r.finishedAt}` : ""}`],
    ...(a
      ? [
          ["success", `${f3(a.successRate)} (verified episodes ${a.verified} of ${a.n} tasks)`],
          ["mean return", `${f3(a.meanReturn)} ± ${f3(a.stderr)}`],
          ["mean steps", a.meanSteps === null ? "-" : a.meanSteps.toFixed(2)],
        ]
      : []),
  ];
  return table(lines);
}

/** `edgegym leaderboard <env>` and `edgegym evals list|show`: the hub's evaluation results. */
export function registerEvalCommands(program: Command): void {
  hubOptions(
    program
      .command("leaderboard <env>")
      .description("The hub's leaderboard of owner/name[@version] on a split")
      .option("--version <version>", "env version (or give owner/name@version); default latest")
      .option("--split <split>", "task split", "test")
      .option("--min-tasks <n>", "only runs covering at least n tasks (default: the hub's floor, 10)"),
  ).action(
    action(async (ref: string, o: HubFlags & { version?: string; split: string; minTasks?: string }) => {
      const { owner, name, version } = envRef(ref);
      const query = {
        version: o.version ?? version ?? "latest",
        split: o.split,
        ...(o.minTasks === undefined ? {} : { minTasks: o.minTasks }),
      };
      const board = await hubJson(
        hubApi(o).v1.envs[":owner"][":name"].leaderboard.$get({ param: { owner, name }, query }),
      );
      console.log(formatLeaderboard(board));
    }),
  );

  const evals = program.command("evals").description("The hub's evaluation runs");
  hubOptions(
    evals
      .command("list <env>")
      .description("Runs on owner/name[@version] that you may see, newest first")
      .option("--limit <n>", "page size", "20")
      .option("--cursor <cursor>", "the next page, as the previous page printed"),
  ).action(
    action(async (ref: string, o: HubFlags & { limit: string; cursor?: string }) => {
      envRef(ref);
      const query = { env: ref, limit: o.limit, ...(o.cursor ? { cursor: o.cursor } : {}) };
      const page = await hubJson(hubApi(o).v1.evals.$get({ query }));
      if (page.runs.length === 0) console.log(`no evaluation runs of ${ref}`);
      else {
        const rows = page.runs.map((r) => [
          r.id,
          `${r.env}@${r.version}`,
          r.split,
          String(r.model.name ?? ""),
          r.status,
          `${r.tasks.length} tasks`,
          r.aggregate ? `success ${f3(r.aggregate.successRate)}` : "-",
          r.createdAt,
        ]);
        console.log(
          table([["run", "env", "split", "model", "status", "size", "result", "created"], ...rows]),
        );
      }
      if (page.nextCursor) console.log(`… more: --cursor ${page.nextCursor}`);
    }),
  );
  hubOptions(evals.command("show <run>").description("One evaluation run and its aggregate")).action(
    action(async (run: string, o: HubFlags) => {
      const id = encodeURIComponent(run);
      console.log(formatRun(await hubJson(hubApi(o).v1.evals[":id"].$get({ param: { id } }))));
    }),
  );
}
