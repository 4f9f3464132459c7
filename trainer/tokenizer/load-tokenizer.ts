import { access, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ok, type Result } from "../../shared/result.js";
import type { Tokenizer } from "../policy/types.js";
import { ByteTokenizer } from "./byte-tokenizer.js";
import { HfTokenizer, loadHfTokenizer } from "./hf-tokenizer.js";

/** Marks a folder whose tokenizer is the built-in byte tokenizer. */
const BYTE_MARKER = { tokenizer_class: "EdgegymByteTokenizer" };

/** The folder's Hugging Face tokenizer when it has a `tokenizer.json`, else the byte tokenizer. */
export async function loadTokenizer(dir: string): Promise<Result<Tokenizer>> {
  const hasHf = await access(join(dir, "tokenizer.json")).then(
    () => true,
    () => false,
  );
  return hasHf ? loadHfTokenizer(dir) : ok(new ByteTokenizer());
}

/** Writes what `loadTokenizer` reads back. */
export async function saveTokenizer(dir: string, tokenizer: Tokenizer): Promise<void> {
  if (tokenizer instanceof HfTokenizer) {
    for (const [name, content] of Object.entries(tokenizer.files)) {
      await writeFile(join(dir, name), JSON.stringify(content, null, 2));
    }
    return;
  }
  await writeFile(join(dir, "tokenizer_config.json"), JSON.stringify(BYTE_MARKER, null, 2));
}
