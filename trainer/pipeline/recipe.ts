import { access, readdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { z } from "zod";
import { EnvRefString as EnvRef } from "../../shared/env-ref.js";
import { err, ok, type Result } from "../../shared/result.js";
import { parseConfig } from "../config/parse-config.js";
import { FRESH_MODEL_SHAPE, type ModelShape } from "../model/config.js";
import { TrainFields, withMethod } from "../rl/config.js";
import { SftConfig } from "../sft/config.js";
import { CurveConfig, curvePlan } from "./curve.js";
import { SelectConfig } from "./select.js";

/** Where `npm start -- --recipe <name>` looks for `<name>.json`. */
export const RECIPES_DIR = resolve(import.meta.dirname, "../../recipes");
export const DEFAULT_RECIPE = "calculator-l1-grpo";

/** The fields the pipeline sets itself (env, run folder, starting checkpoint) are not part of a recipe. */
const OWNED = { env: true, out: true, init: true } as const;
/** RL's KL reference is the run's own SFT checkpoint. */
const RL_OWNED = { ...OWNED, reference: true } as const;
/** A recipe's `rl`: the train config's fields without those, with the method's values applied. */
const RlConfig = withMethod(TrainFields.omit(RL_OWNED).strict());

/**
 * One end-to-end experiment: an SFT warm start on expert demos, then RL, then a hub evaluation of
 * both policies on the same test tasks. Each stage's fields are the trainer's own typed configs
 * (same names, same defaults), so a recipe can't drift from what `edgegym sft|train` accept.
 */
export const Recipe = z.strictObject({
  /** One line saying what the recipe shows. */
  description: z.string(),
  /** The hub env as `owner/name@version` that both policies are evaluated on. */
  env: EnvRef,
  /**
   * The hub env SFT and RL train on, when it is not `env`: an env with the same tools whose train
   * split stands in for one that has none (procedural search questions for the HotpotQA sample).
   * Unset: they train on `env`.
   */
  trainEnv: EnvRef.optional(),
  /**
   * A checkpoint folder, relative to the repository, that the SFT stage continues from instead of a
   * fresh model: a longer SFT run of the project's own, committed with the command that made it (see
   * its README). Unset: SFT starts from a fresh model of `sft.model`'s shape.
   */
  base: z.string().optional(),
  /**
   * Datasets the env serves, imported into the local hub's D1 before the hub starts, as
   * `npm run data -- import <kind> <path> --d1 local` would (paths relative to the repository).
   */
  data: z.array(z.object({ kind: z.string(), path: z.string() }).strict()).default([]),
  /** `edgegym sft` fields (model shape, demo count, epochs, ...). */
  sft: SftConfig.omit(OWNED).strict().default(SftConfig.omit(OWNED).parse({})),
  /** `edgegym train` fields (algorithm, iterations, group size, ...). */
  rl: RlConfig.default(RlConfig.parse({})),
  /** RL iterations per resumable segment: an interrupted run restarts at the last finished segment. */
  segment: z.number().int().positive().default(5),
  /** The evaluation both policies get: the split's first `n` tasks, greedy decoding. */
  eval: z
    .object({
      split: z.string().default("test"),
      n: z.number().int().positive().default(100),
      maxSteps: z.number().int().positive().default(4),
      maxNewTokens: z.number().int().positive().default(64),
    })
    .strict()
    .default({ split: "test", n: 100, maxSteps: 4, maxNewTokens: 64 }),
  /**
   * A learning curve after the evaluations (trainer/pipeline/curve.ts), e.g.
   * `{ "every": 10, "n": 200, "split": "test" }`: the SFT policy and the RL checkpoints at every
   * multiple of `every` play tasks 0..n−1 of `split` greedily in-process, with `eval`'s step and token
   * limits; `curve.json` in the run folder holds each point. Unset: no curve. It does not enter
   * `--reuse`'s comparisons, and adding it to a run folder's recipe resumes that folder.
   */
  curve: CurveConfig.optional(),
  /**
   * Early stopping on held-out train tasks (trainer/pipeline/select.ts), e.g.
   * `{ "split": "train", "n": 300 }`: each RL segment's final checkpoint plays tasks 0..n−1 greedily
   * and the hub evaluates the best of them. Unset: the last segment's checkpoint.
   */
  select: SelectConfig.optional(),
});
export type Recipe = z.infer<typeof Recipe>;

/**
 * A recipe as run folders compare it. `sft.model` and `rl.model` keep only the fields a recipe gives,
 * but folders begun before that hold every field at {@link FRESH_MODEL_SHAPE}'s value: filling both
 * sides the same way keeps those folders resumable and adoptable, with the equality they had then.
 */
export function comparableRecipe(r: Recipe): Recipe {
  const fill = (model: ModelShape): ModelShape => ({ ...FRESH_MODEL_SHAPE, ...model });
  return { ...r, sft: { ...r.sft, model: fill(r.sft.model) }, rl: { ...r.rl, model: fill(r.rl.model) } };
}

export function parseRecipe(json: unknown, name = "recipe"): Result<Recipe> {
  const parsed = parseConfig(Recipe, json, name);
  if (!parsed.ok || !parsed.value.curve) return parsed;
  // Each curve point needs an RL checkpoint, and segments save them at their own iteration numbers.
  const r = parsed.value;
  const curve = parsed.value.curve;
  const { missing } = curvePlan(r.rl.iterations, r.segment, r.rl.checkpointEvery, curve.every);
  if (missing.length === 0) return parsed;
  return err(
    `${name}: curve.every: RL iteration${missing.length > 1 ? "s" : ""} ${missing.slice(0, 3).join(", ")} will have no checkpoint (segment ${r.segment}, rl.checkpointEvery ${r.rl.checkpointEvery}); make every a multiple of segment, or segment a multiple of every and rl.checkpointEvery a divisor of every`,
  );
}

/** The recipe names in `dir` (file names without `.json`), sorted. */
export async function listRecipes(dir = RECIPES_DIR): Promise<string[]> {
  const files = await readdir(dir).catch(() => [] as string[]);
  return files
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.slice(0, -".json".length))
    .sort();
}

/** How deep `extends` may chain: a recipe extends one that extends another, and so on. */
const MAX_EXTENDS = 4;

/**
 * `--recipe` as a name in `recipes/` (`calculator-grpo`) or a path to a JSON file. An unknown name
 * lists the known ones. A recipe may name another in `"extends"`: it is that recipe with these fields
 * laid over it (objects field by field, anything else replaced), which keeps a method's recipe down
 * to what differs from the env's GRPO recipe.
 */
export async function loadRecipe(
  spec: string,
  dir = RECIPES_DIR,
): Promise<Result<{ name: string; recipe: Recipe }>> {
  const isPath = spec.endsWith(".json") || spec.includes("/");
  const file = isPath ? resolve(spec) : join(dir, `${spec}.json`);
  const name = isPath ? (file.split("/").at(-1) ?? spec).replace(/\.json$/, "") : spec;
  const json = await readRecipeJson(spec, file, dir, []);
  if (!json.ok) return json;
  const recipe = parseRecipe(json.value, file);
  if (!recipe.ok) return recipe;
  const base = recipe.value.base;
  if (base !== undefined && !(await exists(resolve(baseDir(), base, "config.json"))))
    return err(`${file}: base checkpoint ${base} not found (no config.json in it)`);
  return ok({ name, recipe: recipe.value });
}

/** A recipe file's JSON with its `extends` chain resolved (names relative to `dir`). */
async function readRecipeJson(
  spec: string,
  file: string,
  dir: string,
  chain: readonly string[],
): Promise<Result<Record<string, unknown>>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    const known = await listRecipes(dir);
    const from = chain.length > 0 ? ` (extended by ${chain.at(-1)})` : "";
    return err(`no recipe "${spec}"${from} (known: ${known.join(", ") || "none"})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return err(`${file} is not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!isObject(json)) return err(`${file}: a recipe is a JSON object`);
  const { extends: parent, ...own } = json;
  if (parent === undefined) return ok(own);
  if (typeof parent !== "string") return err(`${file}: extends: expected a recipe name`);
  if (chain.includes(file) || chain.length >= MAX_EXTENDS)
    return err(
      `${file}: extends: a cycle or a chain over ${MAX_EXTENDS} deep (${[...chain, file].join(" → ")})`,
    );
  const inherited = await readRecipeJson(parent, join(dir, `${parent}.json`), dir, [...chain, file]);
  return inherited.ok ? ok(overlay(inherited.value, own)) : inherited;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** `top` laid over `base`: nested objects merge field by field; arrays and values replace. */
function overlay(base: Record<string, unknown>, top: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(top)) {
    const under = out[k];
    out[k] = isObject(v) && isObject(under) ? overlay(under, v) : v;
  }
  return out;
}

/** The folder a recipe's `base` is relative to: the repository root. */
export function baseDir(): string {
  return resolve(RECIPES_DIR, "..");
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
