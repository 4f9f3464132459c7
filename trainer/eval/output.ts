import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { TrajectoryLine } from "../rollout/trajectory-line.js";
import type { Trajectory } from "../rollout/types.js";
import type { EvalConfig, EvalSummary } from "./config.js";

/** The default `--out` of `edgegym eval`: runs/eval-<UTC time>, e.g. runs/eval-20261124-142501. */
export function defaultEvalOut(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return join("runs", `eval-${stamp}`);
}

/**
 * An evaluation's folder: results.json (the config and the summary the table shows) and
 * trajectories.jsonl (one episode a line, `TrajectoryLine`: its steps' actions, rewards and any failure), so a
 * run can be inspected after the table has scrolled away.
 */
export async function writeEvalRun(
  dir: string,
  config: EvalConfig,
  summary: EvalSummary,
  trajectories: readonly Trajectory[],
): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "results.json"), `${JSON.stringify({ config, summary }, null, 2)}\n`);
  const lines = trajectories.map((t) => JSON.stringify(evalLine(t)));
  await writeFile(join(dir, "trajectories.jsonl"), lines.length > 0 ? `${lines.join("\n")}\n` : "");
}

/** An evaluated episode as a trajectories.jsonl line: each step's action and the observation that followed. */
function evalLine(t: Trajectory): TrajectoryLine {
  return {
    episode: t.episode,
    task: t.task,
    ...(t.episodeId ? { episodeId: t.episodeId } : {}),
    return: t.return,
    success: t.success,
    truncated: t.truncated,
    ...(t.failure ? { failure: t.failure } : {}),
    steps: t.steps.map((s) => ({
      step: s.step,
      action: s.action,
      toolCalls: s.toolCalls,
      reward: s.reward,
      done: s.done,
      observation: s.observation,
    })),
  };
}
