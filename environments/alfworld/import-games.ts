import type { Result } from "../../shared/result.js";
import type { DatasetSourceOptions } from "../data/dataset-source.js";
import type { ImportedDataset } from "../data/datasets.js";
import type { ImportOptions } from "../data/importers.js";
import { trialTask } from "./trial.js";

/** Name under which imported ALFWorld games are stored; `alfworld-imported` plays them. */
export const ALFWORLD_DATASET = "alfworld";

/** ALFWorld's split folders and the built-in env's split each is stored as. */
const SPLIT_FOLDERS: Record<string, string> = {
  train: "train",
  valid_seen: "test",
  valid_unseen: "test_unseen",
};

export const ALFWORLD_SOURCE: DatasetSourceOptions = {
  dataset: ALFWORLD_DATASET,
  splits: Object.values(SPLIT_FOLDERS),
  heldOut: ["test", "test_unseen"],
  importHint:
    "npm run data -- import alfworld <ALFWorld json_2.1.1 folder> (add --d1 local|remote for a worker)",
};

/** A path with `/` separators, as the folder's paths are compared and read. */
const slashed = (path: string) => path.replaceAll("\\", "/");

/** The split a trial's path names through its last ALFWorld split folder, if any. */
function splitOf(path: string): string | undefined {
  const folders = slashed(path).split("/");
  const last = folders.findLast((f) => Object.hasOwn(SPLIT_FOLDERS, f));
  return last === undefined ? undefined : SPLIT_FOLDERS[last];
}

/**
 * `npm run data -- import alfworld <folder>`: every trial folder under it (one holding `traj_data.json`
 * and `game.tw-pddl`) as a task of the alfworld engine, stored by the split its path names
 * (`train`, `valid_seen` → `test`, `valid_unseen` → `test_unseen`; `--split` for all). A trial that
 * can't be played is left out with one line saying why; none playable fails the import.
 */
export async function importAlfworld(
  _text: string,
  options: ImportOptions,
): Promise<Result<ImportedDataset>> {
  const folder = options.folder;
  if (folder === undefined) {
    return {
      ok: false,
      error: "give a folder of ALFWorld trials (json_2.1.1 or one of its splits), not a file",
    };
  }
  const paths = folder.files.map(slashed);
  const files = new Set(paths);
  // Each trial is the folder its traj_data.json lies in.
  const trials = paths
    .filter((f) => f.split("/").at(-1) === "traj_data.json")
    .map((f) => f.split("/").slice(0, -1).join("/"))
    .sort();
  if (trials.length === 0) return { ok: false, error: "no traj_data.json under it" };
  const tasks: ImportedDataset["tasks"] = [];
  const refused: string[] = [];
  for (const trial of trials) {
    const at = (name: string) => (trial === "" ? name : `${trial}/${name}`);
    const label = trial === "" ? "." : trial;
    const split = options.split ?? splitOf(`${options.source}/${trial}`);
    if (split === undefined) {
      refused.push(`${label}: no train, valid_seen or valid_unseen folder names its split; pass --split`);
      continue;
    }
    if (!files.has(at("game.tw-pddl"))) {
      refused.push(`${label}: no game.tw-pddl`);
      continue;
    }
    const task = trialTask(await folder.read(at("traj_data.json")), await folder.read(at("game.tw-pddl")));
    if (task.ok) tasks.push({ split, payload: task.value });
    else refused.push(`${label}: ${task.error}`);
  }
  if (tasks.length === 0) {
    return { ok: false, error: `no trial imported, ${refused.length} refused:\n${refused.join("\n")}` };
  }
  return { ok: true, value: { name: ALFWORLD_DATASET, tasks, refused } };
}
importAlfworld.readsFolder = true as const;
