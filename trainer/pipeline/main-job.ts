import { appendFile, cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { err, ok, type Result } from "../../shared/result.js";
import { startBackend } from "../backend/start-backend.js";
import { loadCheckpoint, saveCheckpoint } from "../checkpoint/checkpoint.js";
import { checkpointShape, loadPolicy } from "../checkpoint/load-policy.js";
import { writeReport } from "../report/report.js";
import { runTraining } from "../rl/run.js";
import type { RunIO } from "../run/run-io.js";
import { runSft } from "../sft/sft-run.js";
import { runCurveStage } from "./curve-stage.js";
import { type Hub, runHubEval } from "./hub-eval.js";
import { type EvalDone, type JobState, loadState, nextStage, saveState, segmentSizes } from "./plan.js";
import { baseDir, type Recipe } from "./recipe.js";
import { adoptStages, type SourceRun } from "./reuse.js";
import { selectedSegment } from "./select.js";
import { validateCheckpoint } from "./select-stage.js";

/** Thrown from a progress callback to stop the trainer between iterations (Ctrl-C). */
export class Interrupted extends Error {}

export type MainJobOptions = {
  name: string;
  recipe: Recipe;
  runDir: string;
  hub: Hub;
  /** Start over instead of resuming the folder's state.json. */
  fresh: boolean;
  /** A run folder whose stages this run adopts where their inputs match (`--reuse`). */
  reuse?: SourceRun;
  /** Aborted on Ctrl-C: the running stage stops after its current iteration and is redone on resume. */
  signal: AbortSignal;
  log: (line: string) => void;
  /** Per-iteration progress of the training stages. */
  progress: (stage: string, iteration: number, total: number, metrics: Record<string, number>) => void;
};

export type MainJobResult = { state: JobState; interrupted: boolean };

const rlTitle = (name: string, recipe: Recipe) => `${name} · SFT + ${recipe.rl.algorithm}`;

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
      current =
        stage.kind === "rl"
          ? `rl segment ${stage.segment}`
          : stage.kind === "validate"
            ? `validate segment ${stage.segment}`
            : stage.kind === "eval"
              ? `eval ${stage.which}`
              : "sft";
      const t0 = performance.now();
      const seconds = () => Math.round((performance.now() - t0) / 100) / 10;
      if (stage.kind === "sft") {
        io.log(
          `stage sft: ${recipe.sft.episodes} expert demos from ${env}, ${recipe.sft.epochs} epochs, from ${recipe.base ?? "a fresh model"}`,
        );
        const base =
          recipe.base === undefined
            ? {}
            : { init: resolve(baseDir(), recipe.base), model: checkpointShape(recipe.sft.model) };
        const sft = await runSft({ ...recipe.sft, ...base, env, out: stage.out }, io, (e, total, m) => {
          opts.progress("sft", e, total, m);
          stopIfAsked();
        });
        if (!sft.ok) return fail(sft.error);
        state.sft = { checkpoint: sft.value.checkpoint, seconds: seconds() };
      } else if (stage.kind === "rl") {
        const done = sizes.slice(0, stage.segment - 1).reduce((a, b) => a + b, 0);
        io.log(
          `stage rl ${stage.segment}/${sizes.length}: ${recipe.rl.algorithm} iterations ${done + 1}–${done + stage.iterations} of ${recipe.rl.iterations}`,
        );
        const sftWeights = await weightsOnly(state.sft?.checkpoint ?? stage.init);
        const init = stage.segment === 1 ? sftWeights : stage.init;
        const rl = await runTraining(
          // Each segment gets its own seed so that segments draw different tasks.
          {
            ...recipe.rl,
            env,
            init,
            model: checkpointShape(recipe.rl.model),
            // Every segment's KL term pulls toward the SFT policy, not toward where the last one ended.
            ...(recipe.rl.klCoef > 0 ? { reference: sftWeights } : {}),
            out: stage.out,
            iterations: stage.iterations,
            seed: recipe.rl.seed * 1000 + stage.segment,
          },
          io,
          (i, _total, m) => {
            opts.progress(recipe.rl.algorithm, done + i, recipe.rl.iterations, m);
            stopIfAsked();
          },
        );
        if (!rl.ok) return fail(rl.error);
        state.segments.push({ dir: stage.out, iterations: stage.iterations, seconds: seconds() });
        await mergeMetrics(join(runDir, "rl"), state);
        await writeReport(join(runDir, "rl"), rlTitle(opts.name, recipe));
      } else if (stage.kind === "validate") {
        const scored = await validateCheckpoint(recipe, stage.checkpoint, opts.hub, io);
        if (!scored.ok) return fail(scored.error);
        const segment = state.segments[stage.segment - 1];
        if (segment) segment.validation = scored.value;
        const v = scored.value;
        io.log(
          `validate segment ${stage.segment}: success ${v.success.toFixed(3)} (${v.successes}/${v.n}) on ${recipe.select?.split} tasks 0..${v.n - 1} in ${seconds()} s`,
        );
      } else {
        const label = stage.which === "sft" ? "sft" : `sft+${recipe.rl.algorithm}`;
        if (stage.which === "rl" && recipe.select) {
          const chosen = selectedSegment(state.segments, recipe.select) + 1;
          io.log(
            `select: segment ${chosen} of ${state.segments.length}, the best on ${recipe.select.split} tasks`,
          );
        }
        io.log(
          `stage eval ${label}: ${recipe.eval.split} tasks 0..${recipe.eval.n - 1} as a hub evaluation run`,
        );
        const backend = await startBackend(recipe.rl.backend ?? recipe.sft.backend, io);
        if (!backend.ok) return fail(backend.error);
        state.backend = backend.value;
        const policy = await loadPolicy(stage.checkpoint, {}, 1, io);
        if (!policy.ok) return fail(policy.error);
        const model = `${opts.name}/${label}`;
        const ran = await runHubEval(opts.hub, policy.value, {
          env: recipe.env,
          ...recipe.eval,
          model: { name: model, recipe: opts.name, checkpoint: stage.checkpoint, backend: backend.value },
        });
        if (!ran.ok) return fail(ran.error);
        const a = ran.value.aggregate;
        io.log(
          `eval ${label}: success ${a.successRate.toFixed(3)}, reward ${a.meanReturn.toFixed(3)} ± ${a.stderr.toFixed(3)} (n=${a.n}, verified ${a.verified}, rejected ${ran.value.rejected}) hub run ${ran.value.runId}`,
        );
        for (const why of ran.value.rejections) io.log(`eval ${label}: the hub rejected ${why}`);
        for (const line of ran.value.failures) io.log(`eval ${label}: no receipt: ${line}`);
        const outcomes = ran.value.outcomes;
        if (!outcomes.ok) io.log(`eval ${label}: no task-by-task record: ${outcomes.error}`);
        const result: EvalDone = {
          runId: ran.value.runId,
          model,
          checkpoint: stage.checkpoint,
          aggregate: a,
          seconds: seconds(),
          ...(outcomes.ok ? { outcomes: outcomes.value } : {}),
        };
        if (stage.which === "sft") state.evalSft = result;
        else state.evalRl = result;
      }
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

/** The segments' metrics.jsonl as one series (iterations numbered across segments) in `<runDir>/rl`. */
async function mergeMetrics(dir: string, state: JobState): Promise<void> {
  let offset = 0;
  const lines: string[] = [];
  for (const s of state.segments) {
    const text = await readFile(join(s.dir, "metrics.jsonl"), "utf8");
    for (const line of text.split("\n").filter((l) => l.trim() !== "")) {
      const row = JSON.parse(line) as Record<string, number>;
      lines.push(JSON.stringify({ ...row, iteration: offset + (row.iteration ?? 0) }));
    }
    offset += s.iterations;
  }
  await writeFile(join(dir, "metrics.jsonl"), `${lines.join("\n")}\n`);
}

/**
 * The SFT checkpoint without its optimizer state, beside it: RL starts a fresh Adam at the RL learning
 * rate (a loaded optimizer keeps SFT's learning rate, and its moments cover only the variables SFT
 * trained, not the value head).
 */
export async function weightsOnly(checkpoint: string): Promise<string> {
  const dir = `${checkpoint}-weights`;
  await cp(checkpoint, dir, {
    recursive: true,
    filter: (src) => !/optimizer\.(json|safetensors)$/.test(src),
  });
  return dir;
}
