import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HfTokenizer } from "./hf-tokenizer.js";
import { loadHfTokenizer } from "./hf-tokenizer.js";

/** GPT-2's byte → printable character table, as byte-level BPE vocabularies use. */
function bytesToUnicode(): string[] {
  const keep = [...Array(256).keys()].filter(
    (b) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174,
  );
  let extra = 0;
  return [...Array(256).keys()].map((b) => String.fromCharCode(keep.includes(b) ? b : 256 + extra++));
}

const CHATML =
  "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}" +
  "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

let dir = "";
let tok: HfTokenizer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "edgegym-hf-tok-"));
  const vocab = Object.fromEntries(bytesToUnicode().map((ch, i) => [ch, i]));
  const added = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"].map((content, i) => ({
    id: 256 + i,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  }));
  const tokenizerJson = {
    version: "1.0",
    added_tokens: [
      ...added,
      { ...added[0], id: 259, content: "<tool_call>", special: false },
      { ...added[0], id: 260, content: "</tool_call>", special: false },
    ],
    normalizer: null,
    pre_tokenizer: { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: true },
    post_processor: null,
    decoder: { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: true },
    model: { type: "BPE", vocab, merges: [], ignore_merges: false },
  };
  await writeFile(join(dir, "tokenizer.json"), JSON.stringify(tokenizerJson));
  await writeFile(
    join(dir, "tokenizer_config.json"),
    JSON.stringify({
      chat_template: CHATML,
      eos_token: "<|im_end|>",
      pad_token: "<|endoftext|>",
      bos_token: null,
    }),
  );
  const loaded = await loadHfTokenizer(dir);
  if (!loaded.ok) throw new Error(loaded.error);
  tok = loaded.value;
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("Hugging Face tokenizer", () => {
  it("encodes bytes through the BPE and decodes them back", () => {
    // No merges, so each byte is its own token: "hi" = 104 105.
    expect(tok.encode("hi")).toEqual([104, 105]);
    expect(tok.decode(tok.encode("a é"))).toBe("a é");
    expect(tok.vocabSize).toBe(261);
  });

  it("reads the special ids from the config", () => {
    expect(tok.special).toEqual({ eos: 258, bos: 258, pad: 256, endOfTurn: 258 });
    expect(tok.stopIds).toEqual([258]);
    expect(tok.encode("<tool_call>x</tool_call>")).toEqual([259, 120, 260]);
  });

  it("renders the chat template, and continuations that append to it", () => {
    const ids = tok.renderChat([{ role: "user", content: "q" }], { addGenerationPrompt: true });
    expect(tok.decode(ids, { keepControl: true })).toBe(
      "<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\n",
    );
    const more = tok.renderChat([{ role: "user", content: "r" }], {
      addGenerationPrompt: true,
      continuation: true,
    });
    expect(tok.decode(more, { keepControl: true })).toBe(
      "<|im_start|>user\nr<|im_end|>\n<|im_start|>assistant\n",
    );
    // After an assistant's text ChatML writes "<|im_end|>\n": 258 then "\n" (byte 10).
    expect(tok.renderAssistantSuffix()).toEqual([258, 10]);
  });

  it("reports a folder without a tokenizer", async () => {
    const missing = await loadHfTokenizer(join(dir, "nope"));
    expect(missing.ok).toBe(false);
  });
});
