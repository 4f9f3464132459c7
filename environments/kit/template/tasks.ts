import type { TaskSource } from "edgegym/kit";
import capitals from "./data/capitals.json";

/** One task: a country whose capital the model must find. */
export type Task = { country: string; capital: string };

const ALL: readonly Task[] = capitals;

/**
 * The task source: the data file's rows, the last ten held out as the test split (ten, since a hub
 * leaderboard lists runs over at least 10 tasks). `edgegym push` ships data/capitals.json in the
 * bundle as a JSON module, so the hub serves the same tasks. Tasks are addressed by split and
 * index, so `id` must change whenever the rows do.
 */
const SPLITS: Record<string, readonly Task[]> = { train: ALL.slice(0, -10), test: ALL.slice(-10) };

export const tasks: TaskSource<Task> = {
  id: "my-env-capitals/1",
  splits: Object.keys(SPLITS),
  count: (split) => SPLITS[split]?.length ?? 0,
  get: (split, index) => {
    const task = SPLITS[split]?.[index];
    if (!task) throw new Error(`no task ${split}/${index}`);
    return task;
  },
};

/** The atlas the tool reads: every row, test split included (the model still has to call it). */
export const atlas = new Map(ALL.map((t) => [t.country.toLowerCase(), t.capital]));
