import type { Result } from "../../shared/result.js";
import type { RunIO } from "../run/run-io.js";
import type { JobState, Stage } from "./plan.js";
import type { Recipe } from "./recipe.js";

/** The local hub the job trains through and evaluates on. */
export type Hub = { url: string; token: string };

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
  hub: Hub;
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
