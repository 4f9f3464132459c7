import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ok, type Result } from "../../shared/result.js";
import { ByteTokenizer } from "./byte-tokenizer.js";
import { BYTE_TOKENIZER_NAME, byteTokenizerFiles, portableFiles } from "./byte-tokenizer-files.js";
import { HfTokenizer, loadHfTokenizer } from "./hf-tokenizer.js";
import type { Tokenizer } from "./types.js";

/** What checkpoints written before tokenizer.json was exported carry instead (still read). */
const OLD_BYTE_MARKER = "EdgegymByteTokenizer";

/**
 * The folder's tokenizer: the byte tokenizer when its tokenizer_config.json says so (or the folder
 * has no tokenizer.json, as older checkpoints), else the Hugging Face tokenizer it holds.
 */
export async function loadTokenizer(dir: string): Promise<Result<Tokenizer>> {
  const config = await readFile(join(dir, "tokenizer_config.json"), "utf8").then(
    (text) => JSON.parse(text) as Record<string, unknown>,
    () => undefined,
  );
  const byte =
    config?.edgegym_tokenizer === BYTE_TOKENIZER_NAME || config?.tokenizer_class === OLD_BYTE_MARKER;
  if (byte) return ok(new ByteTokenizer());
  const hasHf = await readFile(join(dir, "tokenizer.json")).then(
    () => true,
    () => false,
  );
  return hasHf ? loadHfTokenizer(dir) : ok(new ByteTokenizer());
}

/**
 * Writes what `loadTokenizer` reads back. Every checkpoint gets a tokenizer.json and a
 * tokenizer_config.json with its chat template, the byte tokenizer's expressed as a byte-level BPE;
 * `modelType` (config.json's) decides what transformers needs to read them as edgegym does.
 */
export async function saveTokenizer(dir: string, tokenizer: Tokenizer, modelType: string): Promise<void> {
  await writeTokenizerFiles(
    dir,
    tokenizer instanceof HfTokenizer ? portableFiles(tokenizer.files, modelType) : byteTokenizerFiles(),
  );
}

/** Writes each file into `dir`: text as it is, anything else as JSON (`tokenizer.json`, …). */
export async function writeTokenizerFiles(dir: string, files: Record<string, unknown>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await writeFile(
      join(dir, name),
      typeof content === "string" ? content : JSON.stringify(content, null, 2),
    );
  }
}
