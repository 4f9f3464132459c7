import { EdgegymError } from "../../shared/errors.js";
import type { Environment } from "../kit/index.js";
import type { EnvRuntime, TaskSource } from "../kit/types.js";
import { countTasks, datasetHash, getTask } from "./datasets.js";
import { envDb } from "./db.js";

export type DatasetSourceOptions = {
  /** Dataset name as the importer stores it, e.g. `gsm8k`. */
  dataset: string;
  splits: readonly string[];
  /** The command that imports the data, quoted in `dataset_not_imported` problems. */
  importHint: string;
  /** Splits the expert refuses; default `["test"]`. */
  heldOut?: readonly string[];
};

/** A database without the project's migrations (a fresh local D1): the dataset tables don't exist. */
function isMissingSchema(e: unknown): boolean {
  const messages = [e, (e as { cause?: unknown } | undefined)?.cause].map((x) =>
    x instanceof Error ? x.message : "",
  );
  return messages.some((m) => /no such table/i.test(m));
}

/** Runs a read; a database without the dataset tables reads as "nothing imported". */
async function orNothing<T>(read: () => Promise<T>, nothing: T): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (isMissingSchema(e)) return nothing;
    throw e;
  }
}

async function notImported(opts: DatasetSourceOptions, runtime: EnvRuntime): Promise<EdgegymError> {
  const db = envDb(runtime);
  let why = "";
  if (db === undefined) why = "this host has no database binding (DB or EDGEGYM_DB); ";
  else if (await datasetHash(db, opts.dataset).then(() => false, isMissingSchema)) {
    why = "the database has no dataset tables (apply migrations: npx wrangler d1 migrations apply edgegym); ";
  }
  return new EdgegymError(
    "dataset_not_imported",
    `${why}dataset "${opts.dataset}" has not been imported; run: ${opts.importHint}`,
  );
}

/**
 * A task source over an imported dataset: counts and tasks come from the environment database, and
 * the dataset's hash is the source identity, so an env's content hash changes with its data. Splits
 * count 0 until something is imported.
 */
export function datasetTaskSource<T>(opts: DatasetSourceOptions): TaskSource<T> {
  return {
    id: async (runtime) => {
      const db = envDb(runtime);
      const hash =
        db === undefined ? undefined : await orNothing(() => datasetHash(db, opts.dataset), undefined);
      return `dataset:${opts.dataset}:${hash ?? "none"}`;
    },
    splits: opts.splits,
    ...(opts.heldOut === undefined ? {} : { heldOut: opts.heldOut }),
    count: async (split, runtime) => {
      const db = envDb(runtime);
      return db === undefined ? 0 : orNothing(() => countTasks(db, opts.dataset, split), 0);
    },
    get: async (split, index, runtime) => {
      const db = envDb(runtime);
      const task =
        db === undefined
          ? undefined
          : await orNothing(() => getTask<T>(db, opts.dataset, split, index), undefined);
      if (task === undefined) throw await notImported(opts, runtime);
      return task;
    },
  };
}

/**
 * An environment whose sessions need imported data: starting a session on a known split that holds no
 * tasks gives 404 `dataset_not_imported` (saying which command imports it) instead of
 * `task_out_of_range`. Everything else is the environment unchanged.
 */
export function requireDataset(env: Environment, opts: DatasetSourceOptions): Environment {
  return {
    ...env,
    async startSession(request, runtime, now) {
      if (opts.splits.includes(request.split)) {
        const count = await env.definition.tasks.count(request.split, runtime);
        if (count === 0) throw await notImported(opts, runtime);
      }
      return env.startSession(request, runtime, now);
    },
  };
}
