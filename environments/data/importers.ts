import type { Result } from "../../shared/result.js";
import { importGsm8k } from "../calculator/gsm8k.js";
import { importHotpotqa, importHotpotqaHf, importMusique } from "../search/importers.js";
import {
  importWebshopAnnotations,
  importWebshopHumanInstructions,
  importWebshopProducts,
} from "../webshop/importers.js";
import type { ImportedDataset } from "./datasets.js";

/** What the CLI tells an importer besides the file's text. */
export type ImportOptions = {
  /** `--split`, or inferred from the file name (`train`, `test`, `dev`, `validation`); absent otherwise. */
  split?: string;
  /** The path or URL the text came from, for messages. */
  source: string;
};

/** Turns a downloaded or local file's text into a dataset; never throws on bad input. */
export type Importer = (
  text: string,
  options: ImportOptions,
) => Result<ImportedDataset> | Promise<Result<ImportedDataset>>;

/** Every `npm run data -- import <kind>`: one line per dataset kind. */
export const importers: Record<string, Importer> = {
  gsm8k: importGsm8k,
  hotpotqa: importHotpotqa,
  "hotpotqa-hf": importHotpotqaHf,
  musique: importMusique,
  webshop: importWebshopProducts,
  "webshop-goals": importWebshopAnnotations,
  "webshop-human-goals": importWebshopHumanInstructions,
};
