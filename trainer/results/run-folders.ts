import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Result } from "../../shared/result.js";
import { fromHfConfig, toHfConfig } from "../checkpoint/hf-config.js";
import { parameterCount } from "../model/memory.js";
import type { ModelConfig } from "../model/types.js";
import { JobState } from "../pipeline/plan.js";
import { parseRecipe, type Recipe } from "../pipeline/recipe.js";

/** A finished (or partly finished) `npm start` run folder. */
export type FinishedRun = { dir: string; state: JobState; recipe: Recipe };

/** A model's size as the pooled table states it (the SFT checkpoint's config.json, or the run's log). */
export type ModelSize = { dModel: number; nLayers: number; params: number };

/**
 * The run folders `npm start` left under each root (a folder with a state.json), each with its
 * recipe read by today's schema: older names still read (`"gae"` is PPO, see algos/registry.ts).
 * A folder that cannot be read is named in `skipped` with the reason, never silently lost.
 */
export async function readRuns(
  roots: readonly string[],
): Promise<{ runs: FinishedRun[]; skipped: string[] }> {
  const runs: FinishedRun[] = [];
  const skipped: string[] = [];
  for (const root of roots) {
    const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
    for (const e of entries.filter((d) => d.isDirectory())) {
      const dir = join(root, e.name);
      const text = await readFile(join(dir, "state.json"), "utf8").catch(() => undefined);
      if (text === undefined) continue;
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        skipped.push(`${dir}: state.json is not JSON`);
        continue;
      }
      const state = JobState.safeParse(json);
      if (!state.success) {
        skipped.push(`${dir}: ${state.error.message}`);
        continue;
      }
      const recipe = parseRecipe(state.data.resolved, `${dir}/state.json`);
      if (!recipe.ok) {
        skipped.push(`${dir}: ${recipe.error}`);
        continue;
      }
      runs.push({ dir, state: state.data, recipe: recipe.value });
    }
  }
  runs.sort((a, b) => a.state.recipe.localeCompare(b.state.recipe) || a.dir.localeCompare(b.dir));
  return { runs, skipped };
}

/**
 * The model size of a checkpoint folder from its config.json (HF layout): width, layers and the
 * trainable parameters (trainer/model/memory.ts counts them); undefined when it is not there.
 */
export async function modelSize(checkpoint: string): Promise<ModelSize | undefined> {
  const text = await readFile(join(checkpoint, "config.json"), "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return sizeOf(fromHfConfig(JSON.parse(text)));
  } catch {
    return undefined;
  }
}

/**
 * The model size from the first `config: {…}` line of a run's job.log that names a `modelConfig`
 * (every stage prints its resolved config): a run's record copied elsewhere, such as
 * docs/results/runs/, keeps its log but not its checkpoints. Undefined when no line names one.
 */
export async function loggedModelSize(runDir: string): Promise<ModelSize | undefined> {
  const log = await readFile(join(runDir, "job.log"), "utf8").catch(() => "");
  const line = log.split("\n").find((l) => l.startsWith("config: {") && l.includes('"modelConfig"'));
  if (line === undefined) return undefined;
  try {
    const { modelConfig } = JSON.parse(line.slice("config: ".length)) as { modelConfig?: ModelConfig };
    // Through the HF layout and back, so a logged config is checked as a checkpoint's would be.
    return modelConfig === undefined ? undefined : sizeOf(fromHfConfig(toHfConfig(modelConfig)));
  } catch {
    return undefined;
  }
}

function sizeOf(config: Result<ModelConfig>): ModelSize | undefined {
  if (!config.ok) return undefined;
  const { dModel, nLayers } = config.value;
  return { dModel, nLayers, params: parameterCount(config.value) };
}
