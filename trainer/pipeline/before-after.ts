import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { parseEnvRef } from "../../shared/env-ref.js";
import { pairedDifference } from "./paired.js";
import type { JobState } from "./plan.js";

/** The fields of a checkpoint's config.json (Hugging Face names) that say how big the model is. */
const Shape = z.object({
  model_type: z.string(),
  num_hidden_layers: z.number(),
  hidden_size: z.number(),
  max_position_embeddings: z.number(),
  vocab_size: z.number(),
});

/** `qwen2, 2 layers × 64 wide, context 384, vocab 268` from a checkpoint folder; "?" when unreadable. */
export async function modelSize(checkpoint: string | undefined): Promise<string> {
  if (checkpoint === undefined) return "?";
  const text = await readFile(join(checkpoint, "config.json"), "utf8").catch(() => "");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return "?";
  }
  const c = Shape.safeParse(json);
  if (!c.success) return "?";
  const m = c.data;
  return `${m.model_type}, ${m.num_hidden_layers} layer${m.num_hidden_layers === 1 ? "" : "s"} × ${m.hidden_size} wide, context ${m.max_position_embeddings}, vocab ${m.vocab_size}`;
}

/** A hub aggregate's mean reward ± its standard error (the hub's stderr is that of the mean return). */
const pm = (mean: number, se: number) => `${mean.toFixed(3)} ± ${se.toFixed(3)}`;

/** Tasks solved in `a` and not in `b` (outcome strings of one length). */
const count = (a: string, b: string) => [...a].filter((c, i) => c === "1" && b[i] === "0").length;

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
  const ref = parseEnvRef(env);
  const delta =
    state.evalSft && state.evalRl
      ? state.evalRl.aggregate.successRate - state.evalSft.aggregate.successRate
      : undefined;
  const sft = state.evalSft?.outcomes;
  const rl = state.evalRl?.outcomes;
  // Task by task; each index its own task here (npm run results counts repeated tasks once).
  const paired = pairedDifference(sft, [rl]);
  const changed =
    paired && sft && rl
      ? ` (paired by task index: ± ${paired.se.toFixed(3)}, ${paired.k.toFixed(1)} s.e.; RL solves ${count(rl, sft)} tasks SFT failed and fails ${count(sft, rl)} it solved)`
      : "";
  return [
    ...table.slice(0, 1),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...table.slice(1),
    ...(delta === undefined
      ? []
      : [`RL − SFT success: ${delta >= 0 ? "+" : ""}${delta.toFixed(3)}${changed}`]),
    "",
    `run folder:  ${runDir}`,
    `plot:        ${join(runDir, "rl", "report.png")} (and .svg)`,
    // The evaluated checkpoint: with `select` it can be an earlier segment's than the last.
    `checkpoint:  ${state.evalRl?.checkpoint ?? (last ? join(last.dir, "checkpoints", "final") : "-")} (SFT: ${state.sft?.checkpoint ?? "-"})`,
    `leaderboard: ${ref ? `${hubUrl}/v1/envs/${ref.owner}/${ref.name}/leaderboard?version=${ref.version}&split=${split}` : `not known (${env} is not owner/name@version)`} (npm run dev serves it again)`,
  ].join("\n");
}
