import { join, resolve } from "node:path";
import { err, ok, type Result } from "../../shared/result.js";
import { loadCheckpoint, saveCheckpoint } from "../checkpoint/checkpoint.js";
import { checkpointShape } from "../checkpoint/load-policy.js";
import { connectEnv } from "../client/connect-env.js";
import { runRl } from "../rl/run.js";
import type { RunIO } from "../run/io.js";
import { runSft } from "../sft/run.js";
import { curveEnvSpec } from "./curve-stage.js";
import { greedyScore } from "./greedy-score.js";
import { baseDir, loadRecipe, type Recipe } from "./recipe.js";
import { weightsOnly } from "./rl-stage.js";

export type ProbeOptions = {
  /** RL iterations of each method, from the same SFT policy (8 tasks × 8 rollouts each). */
  iterations: number;
  /** The split scored after each phase: `test` in CI, `train` when choosing settings. */
  split: string;
  /** Tasks 0..n−1 of that split, greedy. */
  n: number;
  /** Threads of SFT and RL (`workers`); the recipes' own when absent. */
  workers?: number;
  /** The folder the checkpoints go to. */
  out: string;
};

/**
 * 20 iterations: chosen on train tasks 0..199 (workers 2, at d759b66): SFT 0.525, then GRPO 0.640,
 * 0.605 and 0.590 after 20, 30 and 40 iterations. 500 tasks, so that a gain of +0.05 is 25 tasks.
 */
export const DEFAULT_PROBE: Omit<ProbeOptions, "out"> = { iterations: 20, split: "test", n: 500 };

/** The recipes the probe shortens: the default run's (`npm start`) and its StepPO twin. */
export const PROBE_RECIPES = ["calculator-l1-grpo", "calculator-l1-steppo"] as const;

export type ProbePhase = { phase: string; success: number; seconds: number };

/**
 * The default recipe, shortened, at calculator level 1: its SFT stage (the committed calculator base
 * continued on 500 calculator-l1 demos), then `iterations` of GRPO and of StepPO with the two recipes'
 * RL settings (KL to that SFT policy, their first segment's seed), each from the SFT weights. Greedy
 * success on `split` tasks 0..n−1 after each phase, the env in-process. Seeded end to end, so one
 * backend and worker count give the same numbers. Call `initBackend` first.
 */
export async function learningProbe(
  opts: ProbeOptions,
  onPhase: (p: ProbePhase) => void = () => {},
): Promise<Result<Record<string, number>>> {
  const recipes: Recipe[] = [];
  for (const name of PROBE_RECIPES) {
    const loaded = await loadRecipe(name);
    if (!loaded.ok) return loaded;
    recipes.push(loaded.value.recipe);
  }
  const [first] = recipes as [Recipe];
  if (first.base === undefined) return err(`${PROBE_RECIPES[0]} has no base checkpoint`);
  const io: RunIO = { log: () => {}, saveCheckpoint, loadCheckpoint };
  const env = curveEnvSpec(first);
  const workers = opts.workers === undefined ? {} : { workers: opts.workers };
  const t0 = performance.now();
  const out: Record<string, number> = {};

  const connected = await connectEnv(env, 16);
  if (!connected.ok) return connected;
  const { client, manifest } = connected.value;
  const score = async (phase: string, checkpoint: string): Promise<Result<void>> => {
    const scored = await greedyScore(
      checkpoint,
      { client, tools: manifest.tools },
      { split: opts.split, n: opts.n },
      first.eval,
      io,
    );
    if (!scored.ok) return scored;
    out[phase] = scored.value.success;
    onPhase({ phase, success: scored.value.success, seconds: (performance.now() - t0) / 1000 });
    return ok(undefined);
  };
  try {
    const sft = await runSft(
      {
        ...first.sft,
        ...workers,
        init: resolve(baseDir(), first.base),
        model: checkpointShape(first.sft.model),
        env,
        out: join(opts.out, "sft"),
      },
      io,
    );
    if (!sft.ok) return sft;
    const scoredSft = await score("sft", sft.value.checkpoint);
    if (!scoredSft.ok) return scoredSft;
    const sftWeights = await weightsOnly(sft.value.checkpoint);
    for (const recipe of recipes) {
      const rl = await runRl(
        {
          ...recipe.rl,
          ...workers,
          env,
          init: sftWeights,
          model: checkpointShape(recipe.rl.model),
          ...(recipe.rl.klCoef > 0 ? { reference: sftWeights } : {}),
          out: join(opts.out, recipe.rl.algorithm),
          iterations: opts.iterations,
          seed: recipe.rl.seed * 1000 + 1,
        },
        io,
      );
      if (!rl.ok) return rl;
      const scored = await score(recipe.rl.algorithm, join(rl.value.runDir, "checkpoints", "final"));
      if (!scored.ok) return scored;
    }
    return ok(out);
  } finally {
    await client.close();
  }
}
