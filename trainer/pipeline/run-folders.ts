import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fromHfConfig } from "../checkpoint/hf-config.js";
import { parameterCount } from "../model/memory.js";
import { JobState } from "./plan.js";
import { parseRecipe, type Recipe } from "./recipe.js";

/** A finished (or partly finished) `npm start` run folder. */
export type FinishedRun = { dir: string; state: JobState; recipe: Recipe };

/** A model's size as the pooled table states it (read from the SFT checkpoint's config.json). */
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
    const config = fromHfConfig(JSON.parse(text));
    if (!config.ok) return undefined;
    return {
      dModel: config.value.dModel,
      nLayers: config.value.nLayers,
      params: parameterCount(config.value),
    };
  } catch {
    return undefined;
  }
}
