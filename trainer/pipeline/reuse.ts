import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { err, ok, type Result } from "../../shared/result.js";
import { JobState, segmentSizes } from "./plan.js";
import { comparableRecipe, parseRecipe, type Recipe } from "./recipe.js";

/** A finished or partly finished run folder whose stages another run may adopt. */
export type SourceRun = { dir: string; state: JobState; recipe: Recipe };

/**
 * Everything the SFT policy depends on: two recipes equal here train the same SFT policy. With a
 * `trainEnv`, the recipe's `data` is the evaluated env's dataset (the train env is there because
 * that env has no train split), so it does not enter.
 */
const sftInputs = (r: Recipe) =>
  JSON.stringify({
    env: r.trainEnv ?? r.env,
    base: r.base,
    data: r.trainEnv ? [] : r.data,
    sft: comparableRecipe(r).sft,
  });
/** Everything the RL policy depends on, given the same SFT policy. */
const rlInputs = (r: Recipe) => JSON.stringify({ rl: comparableRecipe(r).rl, segment: r.segment });
/** What an evaluation depends on, given the same policy. */
const evalInputs = (r: Recipe) => JSON.stringify({ env: r.env, eval: r.eval });

/**
 * Adopts into a fresh `state` the stages of `source` whose every input matches `recipe`'s: SFT when
 * the env trained on, base, data and SFT config are equal; its evaluation when the evaluated env and
 * eval settings are too; the RL segments when the RL config also matches; the RL evaluation last.
 * Other methods on one env share its SFT policy this way, and a second evaluated env (HotpotQA after
 * procedural search) shares the training. Returns the names of the adopted stages.
 */
export function adoptStages(state: JobState, recipe: Recipe, source: SourceRun): string[] {
  if (state.sft || !source.state.sft || sftInputs(recipe) !== sftInputs(source.recipe)) return [];
  const from = source.dir;
  const adopted = ["sft"];
  state.sft = { ...source.state.sft, from };
  const sameEval = evalInputs(recipe) === evalInputs(source.recipe);
  if (sameEval && source.state.evalSft) {
    state.evalSft = { ...source.state.evalSft, from };
    adopted.push("eval sft");
  }
  if (rlInputs(recipe) !== rlInputs(source.recipe)) return adopted;
  state.segments = source.state.segments.map((s) => ({ ...s, from }));
  if (state.segments.length > 0) adopted.push(`rl segments 1–${state.segments.length}`);
  const complete = state.segments.length === segmentSizes(recipe.rl.iterations, recipe.segment).length;
  if (complete && sameEval && source.state.evalRl) {
    state.evalRl = { ...source.state.evalRl, from };
    adopted.push("eval rl");
  }
  return adopted;
}

/** The run folder `dir` as a source of stages, or why it can't be one. */
export async function readSourceRun(dir: string): Promise<Result<SourceRun>> {
  const abs = resolve(dir);
  let json: unknown;
  try {
    json = JSON.parse(await readFile(join(abs, "state.json"), "utf8"));
  } catch {
    return err(`--reuse ${dir}: no readable state.json there (a folder \`npm start\` wrote)`);
  }
  const state = JobState.safeParse(json);
  if (!state.success) return err(`--reuse ${dir}: state.json is not a run state`);
  const recipe = parseRecipe(state.data.resolved, `${dir}/state.json`);
  if (!recipe.ok) return err(`--reuse ${dir}: ${recipe.error}`);
  return ok({ dir: abs, state: state.data, recipe: recipe.value });
}
