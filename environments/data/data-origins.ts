/**
 * Where the public datasets that some recipes and `npm run check:data` read come from. The repository
 * carries only small slices of them (tests/fixtures); the whole files sit in a folder beside the clone,
 * `../shared/data/<dataset>/` by default, which a fresh clone does not have.
 */

/** The default data folder, relative to the repository root. */
export const SHARED_DATA_DIR = "../shared/data";

export type DataOrigin = {
  /** The files read, inside `<data dir>/<dataset>/`. */
  files: readonly string[];
  /** Where to get them, in a few words a user can act on. */
  from: string;
};

export const DATA_ORIGINS: Readonly<Record<string, DataOrigin>> = {
  gsm8k: {
    files: ["train.jsonl", "test.jsonl"],
    from: "grade_school_math/data/ of the GitHub repository openai/grade-school-math (MIT)",
  },
  hotpotqa: {
    files: ["hotpot_dev_distractor_v1_first53.json", "hotpot_dev_distractor_first100_hf_format.json"],
    from:
      "HotpotQA's dev-distractor set, CC BY-SA 4.0: hotpot_dev_distractor_v1_first53.json is the first 53 " +
      "records of hotpot_dev_distractor_v1.json, the other file the first 100 in the Hugging Face layout",
  },
  webshop: {
    files: ["documents_100.jsonl", "items_ins_v2_1000.json"],
    from:
      "the GitHub repository ZihanWang314/webshop-minimal (WebShop's data, MIT): " +
      "webshop_minimal/search_engine/resources_100/documents.jsonl and webshop_minimal/data/small/items_ins_v2_1000.json",
  },
};

/** The dataset folder a path under the data folder belongs to (`../shared/data/gsm8k/x` → gsm8k). */
export function datasetOfPath(path: string): string | undefined {
  const m = /(?:^|\/)shared\/data\/([^/]+)\//.exec(path.replaceAll("\\", "/"));
  return m?.[1];
}

/** One sentence telling how to get a dataset's files (all, or the ones named) into `<dir>/<dataset>/`. */
export function howToGet(dataset: string, dir: string = SHARED_DATA_DIR, files?: readonly string[]): string {
  const origin = DATA_ORIGINS[dataset];
  const names = (files ?? origin?.files ?? []).join(" and ");
  if (!origin) return `put ${names || "the files"} into ${dir}/${dataset}/`;
  return `put ${names} into ${dir}/${dataset}/ (from ${origin.from})`;
}
