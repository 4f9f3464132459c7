import { and, asc, eq, like } from "drizzle-orm";
import { datasetTasks } from "../../shared/db/schema.js";
import { datasetTaskSource } from "../data/dataset-source.js";
import { datasetHash } from "../data/datasets.js";
import { envDb } from "../data/db.js";
import type { EnvRuntime, TaskSource } from "../kit/types.js";
import {
  SEARCH_LEVELS,
  splitWorld,
  type TestWorld,
  WORLD_SPLITS,
  worldGenerator,
  worldSplitCount,
  worldTag,
  worldTask,
} from "./questions.js";
import { CorpusChunk, dedupePassages, type Passage, type SearchTask } from "./task.js";

/** The passages a split searches: a stable name, the identity of its content, and a loader. */
export type CorpusSpec = {
  name: string;
  hash: string;
  passages: () => Promise<readonly Passage[]> | readonly Passage[];
};

/** Where a search environment gets its questions and its corpus. */
export type SearchSource = {
  /** Names the source among a host's environments (caches key on it). */
  key: string;
  tasks: TaskSource<SearchTask>;
  corpus(split: string, runtime: EnvRuntime): Promise<CorpusSpec>;
  /** The corpus is small and built in, so it can be searched in memory when there is no database. */
  inMemory: boolean;
};

/**
 * The built-in source at `level` (see `questions.ts`): a generated world per split, its passages, and
 * its questions. Each level has its own key, task id and corpus name; the top level's are unchanged.
 */
export function worldSourceAt(level: number = SEARCH_LEVELS, test: TestWorld = "own"): SearchSource {
  const generator = worldGenerator(level);
  const tag = (split: string) => worldTag(split, level, test);
  // A level's own test world (LEVEL_TEST_WORLD) renames the task source and that split's corpus, so no
  // cache keyed on the old names serves the old world's passages.
  const id = `${generator}${tag("test") && `+test${tag("test")}`}`;
  return {
    key: id,
    tasks: {
      id,
      splits: Object.keys(WORLD_SPLITS),
      count: (split) => worldSplitCount(split, level, test),
      get: (split, index) => worldTask(split, index, level, test),
    },
    corpus: async (split) => ({
      name: `${generator}/${split}${tag(split)}`,
      hash: id,
      passages: () => splitWorld(split, level, test).passages,
    }),
    inMemory: true,
  };
}

/** The built-in source at the top level: the `search` env's. */
export const worldSource: SearchSource = worldSourceAt();

/** Imported corpora are stored as the dataset's hidden `corpus/<split>` splits, one chunk per row. */
export const CORPUS_SPLIT_PREFIX = "corpus/";

/** Every passage of an imported dataset: the union of its corpus chunks, de-duplicated. */
async function importedPassages(runtime: EnvRuntime, dataset: string): Promise<Passage[]> {
  const db = envDb(runtime);
  if (db === undefined) return [];
  const rows = await db
    .select({ payload: datasetTasks.payload })
    .from(datasetTasks)
    .where(and(eq(datasetTasks.dataset, dataset), like(datasetTasks.split, `${CORPUS_SPLIT_PREFIX}%`)))
    .orderBy(asc(datasetTasks.split), asc(datasetTasks.idx));
  return dedupePassages(rows.flatMap((r) => CorpusChunk.parse(r.payload).passages));
}

/** An imported dataset (`npm run data -- import <kind> <file>`): train and test, one shared corpus. */
export function datasetSource(dataset: string, importHint: string): SearchSource {
  return {
    key: `dataset:${dataset}`,
    tasks: datasetTaskSource<SearchTask>({ dataset, splits: ["train", "test"], importHint }),
    corpus: async (_split, runtime) => {
      const db = envDb(runtime);
      const hash = db === undefined ? undefined : await datasetHash(db, dataset);
      return {
        name: `dataset:${dataset}`,
        hash: hash ?? "none",
        passages: () => importedPassages(runtime, dataset),
      };
    },
    inMemory: false,
  };
}
