import { appendFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { HubTarget } from "../../hub/client.js";
import type { CheckpointIO } from "../checkpoint/types.js";

/** How commands report: a log line, and checkpoint I/O (the policy package's safetensors format). */
export type RunIO = CheckpointIO & {
  log: (line: string) => void;
  /** The hub of `hub://` envs when the caller knows it (the pipeline); else the environment's. */
  hub?: HubTarget;
};

/** A run folder: config.json now, then appendable metrics.jsonl and trajectories.jsonl. */
export async function openRunDir(dir: string, config: unknown) {
  await mkdir(join(dir, "checkpoints"), { recursive: true });
  await writeFile(join(dir, "config.json"), `${JSON.stringify(config, null, 2)}\n`);
  await writeFile(join(dir, "metrics.jsonl"), "");
  await writeFile(join(dir, "trajectories.jsonl"), "");
  return {
    metrics: (row: Record<string, number>) =>
      appendFile(join(dir, "metrics.jsonl"), `${JSON.stringify(row)}\n`),
    trajectories: (lines: string[]) =>
      lines.length === 0
        ? Promise.resolve()
        : appendFile(join(dir, "trajectories.jsonl"), `${lines.join("\n")}\n`),
    checkpoint: (name: string) => join(dir, "checkpoints", name),
  };
}
