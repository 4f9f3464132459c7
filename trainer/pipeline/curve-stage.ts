import { access } from "node:fs/promises";
import { join } from "node:path";
import { findBuiltin, findBuiltinAt, findBuiltinTasksOf } from "../../environments/builtin.js";
import type { Environment } from "../../environments/kit/index.js";
import type { HubTarget } from "../../hub/client.js";
import { parseEnvRef } from "../../shared/env-ref.js";
import { err, ok, type Result } from "../../shared/result.js";
import { startBackend } from "../backend/start-backend.js";
import { connectEnv } from "../client/connect-env.js";
import type { RunIO } from "../run/io.js";
import { type CurveFile, type CurvePoint, curvePlan, readCurve, writeCurve } from "./curve.js";
import { greedyScore } from "./greedy-score.js";
import type { JobState } from "./plan.js";
import type { Recipe } from "./recipe.js";

export type CurveStageOptions = {
  recipe: Recipe;
  runDir: string;
  state: JobState;
  hub: HubTarget;
  io: RunIO;
  /** Throws to stop between points (Ctrl-C); the point under way is redone on resume. */
  stopIfAsked: () => void;
  /** Points done of points planned. */
  progress: (done: number, total: number) => void;
};

/** The recipe's env as name and version when it is one of ours and needs no imported dataset. */
function ownRef(recipe: Recipe) {
  const ref = parseEnvRef(recipe.env);
  return ref?.owner === "edgegym" && recipe.data.length === 0 ? ref : undefined;
}

/** `local:<name>` for today's built-in env, `local:<name>@<version>` for an archived one. */
function localSpec(env: Environment): string {
  return findBuiltin(env.name) === env ? `local:${env.name}` : `local:${env.name}@${env.version}`;
}

/**
 * The env the curve plays on: the built-in env in-process when the hub env is one of ours at a
 * version this code serves (today's, or an archived earlier one) and needs no imported dataset (no hub
 * in the way of a plot); otherwise the local hub's gateway, as training does.
 */
export function curveEnvSpec(recipe: Recipe): string {
  const ref = ownRef(recipe);
  const env = ref ? findBuiltinAt(ref.name, ref.version) : undefined;
  return env ? localSpec(env) : `hub://${recipe.env}`;
}

/**
 * The built-in env whose tasks are the recipe's, for counting and grouping them (never for playing
 * them): as {@link curveEnvSpec}, and also when the recipe names an earlier version whose tasks and
 * first observations a built-in keeps (its `sameTasksAs`).
 */
export function taskEnvSpec(recipe: Recipe): string {
  const ref = ownRef(recipe);
  const env = ref ? findBuiltinTasksOf(ref.name, ref.version) : undefined;
  return env ? localSpec(env) : `hub://${recipe.env}`;
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/**
 * The curve stage: the SFT checkpoint (iteration 0) and each planned RL checkpoint play tasks
 * 0..n−1 of the curve's split once, greedily, with the evaluation's step and token limits. curve.json
 * is rewritten after every point, so a rerun evaluates only the points it lacks; changing the curve's
 * split, n or env starts it over. A checkpoint that is not on disk is recorded as absent, not retried.
 */
export async function runCurveStage(opts: CurveStageOptions): Promise<Result<CurveFile>> {
  const { recipe, runDir, state, io } = opts;
  const curve = recipe.curve;
  if (!curve) return err("the recipe has no curve");
  if (!state.sft) return err("the curve needs the SFT stage");
  const plan = curvePlan(recipe.rl.iterations, recipe.segment, recipe.rl.checkpointEvery, curve.every);
  const targets = [
    { iteration: 0, checkpoint: state.sft.checkpoint },
    ...plan.points.flatMap((p) => {
      const segment = state.segments[p.segment - 1];
      return segment
        ? [{ iteration: p.iteration, checkpoint: join(segment.dir, "checkpoints", p.name) }]
        : [];
    }),
  ];
  const previous = await readCurve(runDir);
  const same = previous?.env === recipe.env && previous.split === curve.split && previous.n === curve.n;
  const file: CurveFile = {
    env: recipe.env,
    split: curve.split,
    n: curve.n,
    every: curve.every,
    points: same ? previous.points : [],
    absent: same ? previous.absent : [],
  };
  // Seeds that adopted their SFT stage (--reuse) take its iteration-0 point from the source's curve.
  const from = state.sft.from;
  if (from !== undefined && !file.points.some((p) => p.iteration === 0)) {
    const source = await readCurve(from);
    const zero = source?.points.find((p) => p.iteration === 0 && p.checkpoint === state.sft?.checkpoint);
    if (source?.env === file.env && source.split === file.split && source.n === file.n && zero) {
      file.points = [{ ...zero, from }, ...file.points];
      io.log(`curve: iteration 0 adopted from ${from}`);
    }
  }
  const todo = targets.filter(
    (t) => !file.points.some((p) => p.iteration === t.iteration) && !file.absent.includes(t.iteration),
  );
  if (todo.length === 0) {
    await writeCurve(runDir, file);
    return ok(file);
  }
  const spec = curveEnvSpec(recipe);
  const backend = await startBackend(recipe.rl.backend ?? recipe.sft.backend, io);
  if (!backend.ok) return backend;
  const connected = await connectEnv(spec, 16, process.env, opts.hub);
  if (!connected.ok) return connected;
  const { client, manifest } = connected.value;
  try {
    const n = Math.min(curve.n, manifest.splits[curve.split] ?? 0);
    if (n === 0) return err(`${spec} has no ${curve.split} tasks`);
    io.log(
      `stage curve: ${todo.length} of ${targets.length} points (iterations ${todo.map((t) => t.iteration).join(", ")}), greedy on ${curve.split} tasks 0..${n - 1} of ${spec}`,
    );
    let done = targets.length - todo.length;
    opts.progress(done, targets.length);
    for (const t of todo) {
      opts.stopIfAsked();
      if (!(await exists(join(t.checkpoint, "config.json")))) {
        io.log(`curve: iteration ${t.iteration}: no checkpoint at ${t.checkpoint}; left out`);
        file.absent = [...file.absent, t.iteration].sort((a, b) => a - b);
        await writeCurve(runDir, file);
        continue;
      }
      const t0 = performance.now();
      const scored = await greedyScore(
        t.checkpoint,
        { client, tools: manifest.tools },
        { split: curve.split, n },
        recipe.eval,
        io,
      );
      if (!scored.ok) return scored;
      const { success, successes, failures } = scored.value;
      const point: CurvePoint = {
        iteration: t.iteration,
        checkpoint: t.checkpoint,
        success,
        successes,
        n,
        failures,
        seconds: Math.round((performance.now() - t0) / 100) / 10,
      };
      file.points = [...file.points, point].sort((a, b) => a.iteration - b.iteration);
      await writeCurve(runDir, file);
      io.log(
        `curve: iteration ${point.iteration}: success ${point.success.toFixed(3)} (${point.successes}/${n}${point.failures > 0 ? `, ${point.failures} infra failures` : ""}) in ${point.seconds} s`,
      );
      opts.progress(++done, targets.length);
    }
  } finally {
    await client.close();
  }
  return ok(file);
}
