import { createSearchEnvironment, type SearchEnvironmentOptions } from "edgegym/search";
import corpus from "./corpus.json";

type Source = SearchEnvironmentOptions["source"];

/** The first 15 questions train, the last 5 test; every split searches the whole corpus. */
const SPLITS = { train: corpus.tasks.slice(0, 15), test: corpus.tasks.slice(15) };

/**
 * The questions and corpus from corpus.json, which `edgegym push` ships beside the code as a JSON
 * module: no database, so the search env searches it in memory (BM25), on Node and in the hub alike.
 */
const bundled: Source = {
  key: "hotpot-search/bundled",
  tasks: {
    id: "hotpot-search/hotpot_dev_distractor_v1_first20",
    splits: Object.keys(SPLITS),
    count: (split) => SPLITS[split as keyof typeof SPLITS]?.length ?? 0,
    get: (split, index) => {
      const task = SPLITS[split as keyof typeof SPLITS]?.[index];
      if (!task) throw new Error(`no task ${split}/${index}`);
      return task;
    },
  },
  corpus: async () => ({
    name: "hotpot-search/first20",
    hash: "hotpot_dev_distractor_v1_first20",
    passages: () => corpus.passages,
  }),
  inMemory: true,
};

/** The search env over 20 HotpotQA questions, as a user would write it to push to the hub. */
export const hotpotSearch = createSearchEnvironment({
  name: "hotpot-search",
  description: "Multi-hop QA over 20 HotpotQA questions and their 199 paragraphs, shipped in the bundle.",
  source: bundled,
});
