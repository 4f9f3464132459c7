import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import type { HubTarget } from "../../hub/client.js";
import { EvalAggregate } from "../../shared/evals.js";
import { err, ok, type Result } from "../../shared/result.js";
import type { RunIO } from "../run/io.js";
import { GreedyScore } from "./greedy-score.js";
import { comparableRecipe, parseRecipe, type Recipe } from "./recipe.js";
import { selectedSegment } from "./select.js";

/** A finished hub evaluation of one policy. */
const EvalDone = z.object({
  runId: z.string(),
  model: z.string(),
  checkpoint: z.string(),
  aggregate: EvalAggregate,
  seconds: z.number(),
  from: z.string().optional(),
  /**
   * Task i's success at position i (`0`/`1`), from the episodes the hub verified, so that two
   * policies evaluated on the same tasks can be compared task by task (`npm run results`).
   */
  outcomes: z
    .string()
    .regex(/^[01]*$/)
    .optional(),
});
export type EvalDone = z.infer<typeof EvalDone>;

/**
 * What a run folder has finished, saved as `state.json` after every stage: the next `npm start` with
 * the same recipe and folder picks up at the first stage not listed here.
 */
export const JobState = z.object({
  recipe: z.string(),
  /** The recipe as it was resolved when the run began; a changed recipe can't resume this folder. */
  resolved: z.unknown(),
  backend: z.string().optional(),
  /**
   * Stages carry `from` (the run folder whose stage this run adopted, `npm start -- --reuse`) when
   * they were not run here; their `seconds` are that run's.
   */
  sft: z.object({ checkpoint: z.string(), seconds: z.number(), from: z.string().optional() }).optional(),
  segments: z
    .array(
      z.object({
        dir: z.string(),
        iterations: z.number(),
        seconds: z.number(),
        from: z.string().optional(),
        /** The final checkpoint's greedy result on the recipe's `select` tasks, when it selects. */
        validation: GreedyScore.optional(),
      }),
    )
    .default([]),
  evalSft: EvalDone.optional(),
  evalRl: EvalDone.optional(),
  /** The stage the last attempt failed in and why; cleared when the next attempt starts. */
  failure: z.object({ stage: z.string(), error: z.string() }).optional(),
});
export type JobState = z.infer<typeof JobState>;

export type Stage =
  | { kind: "sft"; out: string }
  | { kind: "rl"; segment: number; iterations: number; init: string; out: string }
  | { kind: "validate"; segment: number; checkpoint: string }
  | { kind: "eval"; which: "sft" | "rl"; checkpoint: string }
  | { kind: "done" };

/** Per-iteration progress of a training stage (and of the curve's points). */
export type StageProgress = (
  stage: string,
  iteration: number,
  total: number,
  metrics: Record<string, number>,
) => void;

/** The kinds of stage the job runs, each by its handler in `main-job.ts`'s table. */
export type StageKind = Exclude<Stage["kind"], "done">;
export type StageOf<K extends StageKind> = Extract<Stage, { kind: K }>;

/** What every stage of one job is given: the run, its state (the handler records its result there). */
export type StageContext = {
  name: string;
  recipe: Recipe;
  runDir: string;
  /** The local hub the job trains through and evaluates on. */
  hub: HubTarget;
  state: JobState;
  io: RunIO;
  /** The env training plays, through the hub's gateway (`hub://owner/name@version`). */
  env: string;
  /** Iterations per RL segment. */
  sizes: readonly number[];
  progress: StageProgress;
  /** Throws to stop between iterations (Ctrl-C). */
  stopIfAsked: () => void;
  /** Seconds since the stage began, to a tenth. */
  seconds: () => number;
};

/**
 * One stage kind: the name a failure is recorded under in state.json, and the handler that runs it and
 * writes its result into `ctx.state` (the job saves the state after it).
 */
export type StageEntry<K extends StageKind> = {
  label: (stage: StageOf<K>) => string;
  run: (stage: StageOf<K>, ctx: StageContext) => Promise<Result<void>>;
};

const finalCheckpoint = (runDir: string) => join(runDir, "checkpoints", "final");

/**
 * The RL iterations split into resumable segments of `recipe.segment` (the last may be shorter),
 * e.g. 12 iterations in segments of 5 → [5, 5, 2].
 */
export function segmentSizes(iterations: number, segment: number): number[] {
  const sizes: number[] = [];
  for (let left = iterations; left > 0; left -= segment) sizes.push(Math.min(segment, left));
  return sizes;
}

/**
 * The first unfinished stage: SFT, then each RL segment from the previous checkpoint (each validated
 * when the recipe selects), then the two evals.
 */
export function nextStage(state: JobState, recipe: Recipe, runDir: string): Stage {
  if (!state.sft) return { kind: "sft", out: join(runDir, "sft") };
  const sizes = segmentSizes(recipe.rl.iterations, recipe.segment);
  const unvalidated = recipe.select ? state.segments.findIndex((s) => !s.validation) : -1;
  const pending = state.segments[unvalidated];
  if (pending)
    return { kind: "validate", segment: unvalidated + 1, checkpoint: finalCheckpoint(pending.dir) };
  const done = state.segments.length;
  if (done < sizes.length) {
    const previous = state.segments.at(-1);
    return {
      kind: "rl",
      segment: done + 1,
      iterations: sizes[done] as number,
      init: previous ? finalCheckpoint(previous.dir) : state.sft.checkpoint,
      out: join(runDir, "rl", `segment-${done + 1}`),
    };
  }
  if (!state.evalSft) return { kind: "eval", which: "sft", checkpoint: state.sft.checkpoint };
  const chosen = state.segments[selectedSegment(state.segments, recipe.select)];
  if (!state.evalRl && chosen) return { kind: "eval", which: "rl", checkpoint: finalCheckpoint(chosen.dir) };
  return { kind: "done" };
}

/**
 * The run folder's state, or a fresh one. A folder begun with a different recipe is an error (resuming
 * it would mix two experiments) unless `fresh` starts over.
 */
export async function loadState(
  runDir: string,
  name: string,
  recipe: Recipe,
  fresh: boolean,
): Promise<Result<JobState>> {
  const blank: JobState = { recipe: name, resolved: recipe, segments: [] };
  if (fresh) return ok(blank);
  let text: string;
  try {
    text = await readFile(join(runDir, "state.json"), "utf8");
  } catch {
    return ok(blank);
  }
  const parsed = JobState.safeParse(JSON.parse(text));
  if (!parsed.success) return err(`${runDir}/state.json is not a run state; use --fresh to start over`);
  // The stored recipe read by today's schema: a field added since (at the default that keeps the old
  // behaviour, as sft.workers) or a method's older name (rl.algorithm "gae" for ppo) does not make the
  // folder another experiment.
  const stored = parseRecipe(parsed.data.resolved);
  const then = stored.ok ? comparableRecipe(stored.value) : parsed.data.resolved;
  // The curve only reads finished stages: adding or changing it resumes the folder with the new recipe.
  const withoutCurve = (r: unknown) => JSON.stringify({ ...(r as object), curve: undefined });
  if (withoutCurve(then) !== withoutCurve(comparableRecipe(recipe)) || parsed.data.recipe !== name)
    return err(
      `${runDir} was begun with another recipe; use --fresh to start over or --out for a new folder`,
    );
  return ok({ ...parsed.data, resolved: recipe });
}

/** Writes state.json atomically (temp file + rename), so an interrupt never leaves half a file. */
export async function saveState(runDir: string, state: JobState): Promise<void> {
  const file = join(runDir, "state.json");
  await writeFile(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  await rename(`${file}.tmp`, file);
}
