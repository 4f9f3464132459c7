import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../shared/protocol.js";
import {
  CHATML_TOKENS,
  chatTemplate,
  LLAMA3_TOKENS,
  writeTokenizerFolder,
} from "../testing/tokenizer-fixtures.js";
import type { HfTokenizer } from "./hf-tokenizer.js";
import { loadHfTokenizer } from "./hf-tokenizer.js";

let dir = "";
let tok: HfTokenizer;
let llama: HfTokenizer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "edgegym-hf-tok-"));
  await writeTokenizerFolder(join(dir, "chatml"), CHATML_TOKENS, {
    chat_template: chatTemplate("chatml"),
    eos_token: "<|im_end|>",
    pad_token: "<|endoftext|>",
    bos_token: null,
  });
  await writeTokenizerFolder(join(dir, "llama3"), LLAMA3_TOKENS, {
    chat_template: chatTemplate("llama3"),
    bos_token: "<|begin_of_text|>",
    eos_token: "<|eot_id|>",
  });
  const loaded = await loadHfTokenizer(join(dir, "chatml"));
  const loadedLlama = await loadHfTokenizer(join(dir, "llama3"));
  if (!loaded.ok || !loadedLlama.ok) throw new Error("fixture tokenizers did not load");
  tok = loaded.value;
  llama = loadedLlama.value;
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

  it("decodes spaces before punctuation as they are, as transformers 5 does without the config key", async () => {
    const text = "a . b 's c , d ?";
    expect(tok.decode(tok.encode(text))).toBe(text);
    await writeTokenizerFolder(join(dir, "cleanup"), CHATML_TOKENS, {
      chat_template: chatTemplate("chatml"),
      clean_up_tokenization_spaces: true,
    });
    const cleaning = await loadHfTokenizer(join(dir, "cleanup"));
    expect(cleaning.ok && cleaning.value.decode(tok.encode(text))).toBe("a. b's c, d?");
  });

  it("reads the special ids from the config", () => {
    expect(tok.special).toEqual({ eos: 258, bos: 258, pad: 256, endOfTurn: 258 });
    expect(tok.stopIds).toEqual([258]);
    expect(tok.encode("<tool_call>x</tool_call>")).toEqual([259, 120, 260]);
  });

  it("reads Llama 3's special tokens: <|begin_of_text|> opens, <|eot_id|> ends a turn", () => {
    // Ids run to <|eot_id|> = 128,009, so 128,010 rows; the unused ids between are simply never produced.
    expect(llama.vocabSize).toBe(128_010);
    expect(llama.special).toEqual({ bos: 128_000, eos: 128_009, pad: 128_009, endOfTurn: 128_009 });
    const ids = llama.renderChat([{ role: "user", content: "hi" }], { addGenerationPrompt: true });
    // <|begin_of_text|>, the dated system turn, then <|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|>.
    expect(ids[0]).toBe(128_000);
    const user = [128_006, ...llama.encode("user"), 128_007, 10, 10, 104, 105, 128_009];
    const header = [128_006, ...llama.encode("assistant"), 128_007, 10, 10];
    expect(ids.slice(-user.length - header.length)).toEqual([...user, ...header]);
    expect(llama.decode(ids)).not.toContain("<|");
  });

  it("renders the chat template and closes a turn the way the template does", () => {
    const ids = tok.renderChat([{ role: "user", content: "q" }], { addGenerationPrompt: true });
    expect(tok.decode(ids, { keepControl: true })).toBe(
      "<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\n",
    );
    const history: ChatMessage[] = [{ role: "user", content: "q" }];
    const next: ChatMessage[] = [{ role: "user", content: "r" }];
    // A response that ended with <|im_end|> (258) is followed by "\n" (10), not by a second <|im_end|>;
    // one cut short gets both. ChatML writes "<|im_end|>\n" after every turn.
    const turn = tok.renderNextTurn(history, [97, 258], next);
    expect(tok.decode(turn, { keepControl: true })).toBe(
      "\n<|im_start|>user\nr<|im_end|>\n<|im_start|>assistant\n",
    );
    expect(tok.renderNextTurn(history, [97], next)).toEqual([258, ...turn]);
    // With no message after the response, the close and the generation prompt.
    expect(tok.renderNextTurn(history, [97], [])).toEqual([258, 10, 257, ...tok.encode("assistant\n")]);
  });

  it("refuses a template that rewrites earlier turns instead of re-tokenizing the sampled response", async () => {
    // This template numbers the conversation's length in its first line, so adding a turn changes
    // text the previous prompt already holds.
    await writeTokenizerFolder(join(dir, "counting"), CHATML_TOKENS, {
      chat_template: `{{ messages | length }} turns\n${chatTemplate("chatml")}`,
      eos_token: "<|im_end|>",
    });
    const counting = await loadHfTokenizer(join(dir, "counting"));
    if (!counting.ok) throw new Error(counting.error);
    const history: ChatMessage[] = [{ role: "user", content: "q" }];
    expect(() => counting.value.renderNextTurn(history, [97, 258], [{ role: "user", content: "r" }])).toThrow(
      /rewrites earlier turns/,
    );
  });

  it("reports a folder without a tokenizer", async () => {
    const missing = await loadHfTokenizer(join(dir, "nope"));
    expect(missing.ok).toBe(false);
  });
});
