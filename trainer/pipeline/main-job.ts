import { appendFile, mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { HubTarget } from "../../hub/client.js";
import { err, ok, type Result } from "../../shared/result.js";
import { loadCheckpoint, saveCheckpoint } from "../checkpoint/checkpoint.js";
import { checkpointShape } from "../checkpoint/load-policy.js";
import type { RunIO } from "../run/io.js";
import { runSft } from "../sft/run.js";
import { runCurveStage } from "./curve-stage.js";
import { runEvalStage } from "./eval-stage.js";
import {
  type JobState,
  loadState,
  nextStage,
  type StageContext,
  type StageEntry,
  type StageKind,
  type StageOf,
  type StageProgress,
  saveState,
  segmentSizes,
} from "./plan.js";
import { baseDir, type Recipe } from "./recipe.js";
import { adoptStages, type SourceRun } from "./reuse.js";
import { runRlStage } from "./rl-stage.js";
import { runValidateStage } from "./select-stage.js";

/** Thrown from a progress callback to stop the trainer between iterations (Ctrl-C). */
export class Interrupted extends Error {}

export type MainJobOptions = {
  name: string;
  recipe: Recipe;
  runDir: string;
  hub: HubTarget;
  /** Start over instead of resuming the folder's state.json. */
  fresh: boolean;
  /** A run folder whose stages this run adopts where their inputs match (`--reuse`). */
  reuse?: SourceRun;
  /** Aborted on Ctrl-C: the running stage stops after its current iteration and is redone on resume. */
  signal: AbortSignal;
  log: (line: string) => void;
  /** Per-iteration progress of the training stages. */
  progress: StageProgress;
};

export type MainJobResult = { state: JobState; interrupted: boolean };

/** SFT on the recipe's expert demos through the hub gateway, from its base checkpoint or a fresh model. */
async function runSftStage(stage: StageOf<"sft">, ctx: StageContext): Promise<Result<void>> {
  const { recipe, io } = ctx;
  io.log(
    `stage sft: ${recipe.sft.episodes} expert demos from ${ctx.env}, ${recipe.sft.epochs} epochs, from ${recipe.base ?? "a fresh model"}`,
  );
  const base =
    recipe.base === undefined
      ? {}
      : { init: resolve(baseDir(), recipe.base), model: checkpointShape(recipe.sft.model) };
  const sft = await runSft({ ...recipe.sft, ...base, env: ctx.env, out: stage.out }, io, (e, total, m) => {
    ctx.progress("sft", e, total, m);
    ctx.stopIfAsked();
  });
  if (!sft.ok) return sft;
  ctx.state.sft = { checkpoint: sft.value.checkpoint, seconds: ctx.seconds() };
  return ok(undefined);
}

/** Each stage kind's handler (in a file of its own but for SFT's, above); `nextStage` says which runs next. */
const STAGES: { [K in StageKind]: StageEntry<K> } = {
  sft: { label: () => "sft", run: runSftStage },
  rl: { label: (s) => `rl segment ${s.segment}`, run: runRlStage },
  validate: { label: (s) => `validate segment ${s.segment}`, run: runValidateStage },
  eval: { label: (s) => `eval ${s.which}`, run: runEvalStage },
};

/** The entry of `stage`'s kind; the table's type ties each entry to its own kind of stage. */
const entryOf = (stage: StageOf<StageKind>) => STAGES[stage.kind] as StageEntry<StageKind>;

/**
 * The main job: SFT warm start through the hub gateway, RL in resumable segments, then a hub
 * evaluation run of each policy. Every finished stage is recorded in `<runDir>/state.json`, so a rerun
 * continues where an interrupted one stopped.
 */
export async function runMainJob(opts: MainJobOptions): Promise<Result<MainJobResult>> {
  const { recipe, runDir, signal } = opts;
  await mkdir(runDir, { recursive: true });
  const loaded = await loadState(runDir, opts.name, recipe, opts.fresh);
  if (!loaded.ok) return loaded;
  const state = loaded.value;
  delete state.failure;
  if (opts.reuse) {
    const adopted = adoptStages(state, recipe, opts.reuse);
    opts.log(
      adopted.length > 0
        ? `adopted from ${opts.reuse.dir}: ${adopted.join(", ")}`
        : `nothing adopted from ${opts.reuse.dir}: ${state.sft ? "this run has its own SFT" : "its SFT inputs differ"}`,
    );
  }
  await saveState(runDir, state);
  const env = `hub://${recipe.trainEnv ?? recipe.env}`;
  const io: RunIO = {
    log: (line) => {
      opts.log(line);
      void appendFile(join(runDir, "job.log"), `${line}\n`);
    },
    saveCheckpoint,
    loadCheckpoint,
    // The hub's credentials go to the stages as an argument, never through process.env.
    hub: opts.hub,
  };
  const stopIfAsked = () => {
    if (signal.aborted) throw new Interrupted("interrupted");
  };
  const sizes = segmentSizes(recipe.rl.iterations, recipe.segment);
  const job: Omit<StageContext, "seconds"> = {
    name: opts.name,
    recipe,
    runDir,
    hub: opts.hub,
    state,
    io,
    env,
    sizes,
    progress: opts.progress,
    stopIfAsked,
  };
  let current = "setup";
  // A failed stage is recorded in state.json (and shown by npm run results) before the error returns.
  const fail = async (error: string): Promise<Result<MainJobResult>> => {
    state.failure = { stage: current, error };
    await saveState(runDir, state);
    return err(`${current}: ${error}`);
  };

  try {
    for (
      let stage = nextStage(state, recipe, runDir);
      stage.kind !== "done";
      stage = nextStage(state, recipe, runDir)
    ) {
      stopIfAsked();
      const entry = entryOf(stage);
      current = entry.label(stage);
      const t0 = performance.now();
      const seconds = () => Math.round((performance.now() - t0) / 100) / 10;
      const ran = await entry.run(stage, { ...job, seconds });
      if (!ran.ok) return fail(ran.error);
      await saveState(runDir, state);
    }
    // Last, the learning curve (a plot; the hub evaluations above are the table's figures).
    if (recipe.curve) {
      current = "curve";
      const curve = await runCurveStage({
        recipe,
        runDir,
        state,
        hub: opts.hub,
        io,
        stopIfAsked,
        progress: (done, total) => opts.progress("curve", done, total, {}),
      });
      if (!curve.ok) return fail(curve.error);
    }
  } catch (e) {
    if (e instanceof Interrupted) return ok({ state, interrupted: true });
    // An unexpected crash: the stack goes to the run folder's log, the message to state.json.
    await appendFile(join(runDir, "job.log"), `${e instanceof Error ? e.stack : String(e)}\n`);
    return fail(e instanceof Error ? e.message : String(e));
  }
  return ok({ state, interrupted: false });
}
