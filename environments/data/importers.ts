import type { Result } from "../../shared/result.js";
import type { ImportedDataset } from "./datasets.js";

/** What the CLI tells an importer besides the file's text. */
export type ImportOptions = {
  /** `--split`, or inferred from the file name (`train`, `test`, `dev`, `validation`); absent otherwise. */
  split?: string;
  /** The path or URL the text came from, for messages. */
  source: string;
  /** When the source is a folder (`text` is then empty): its files, relative to it, and their reader. */
  folder?: { files: readonly string[]; read(path: string): Promise<string> };
};

/**
 * Turns a downloaded or local file's text into a dataset; never throws on bad input. Each env owns
 * its importers; `builtinImporters` in environments/builtin.ts names them by dataset kind.
 */
export type Importer = ((
  text: string,
  options: ImportOptions,
) => Result<ImportedDataset> | Promise<Result<ImportedDataset>>) & {
  /** Set on an importer that reads a folder (`options.folder`); the others are given a file's text. */
  readsFolder?: true;
};
