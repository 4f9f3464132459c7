import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Template } from "@huggingface/jinja";
import { Tokenizer as HfCore } from "@huggingface/tokenizers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage, ToolSpec } from "../../shared/protocol.js";
import { ByteTokenizer } from "./byte-tokenizer.js";
import { loadTokenizer, saveTokenizer } from "./load-tokenizer.js";

const byte = new ByteTokenizer();

/** Scripts, joiners, NFD, code, tool markup, whitespace runs and raw control bytes. */
const VARIED = [
  "Hello, world! 3.14159",
  "中文 日本語 한국어",
  "مرحبا بالعالم ١٢٣",
  "👨‍👩‍👧‍👦 🏳️‍🌈 👍🏽 1️⃣",
  "cafe\u0301 vs café",
  "def f(x):\n    return {'a': [1, 2]}\r\n\tpass",
  '<tool_call>{"name":"calculator","arguments":{"expression":"2+3"}}</tool_call>',
  "<tool_response>\n5\n</tool_response>",
  "   \n\n\n \t\t  x    ",
  "\u0000\u0007\u001b[31m",
];

const tools: ToolSpec[] = [
  {
    type: "function",
    function: {
      name: "calculator",
      description: "Évalue une expression — « 2+3 »",
      parameters: {
        type: "object",
        properties: { expression: { type: "string" } },
        required: ["expression"],
      },
    },
  },
];

const conversation: ChatMessage[] = [
  { role: "system", content: "Solve it." },
  { role: "user", content: "What is 2+3? 中文" },
  {
    role: "assistant",
    content: "Let me add.",
    tool_calls: [
      { id: "c1", type: "function", function: { name: "calculator", arguments: '{"expression":"2+3"}' } },
    ],
  },
  { role: "tool", tool_call_id: "c1", content: "5" },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: "c2", type: "function", function: { name: "calculator", arguments: '{"expression":"5*4"}' } },
    ],
  },
  { role: "tool", tool_call_id: "c2", content: "20" },
  { role: "assistant", content: "#### 20" },
];

let dir = "";
let core: HfCore;
let config: Record<string, unknown>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "edgegym-byte-files-"));
  await saveTokenizer(dir, byte, "qwen2");
  const json = JSON.parse(await readFile(join(dir, "tokenizer.json"), "utf8"));
  config = JSON.parse(await readFile(join(dir, "tokenizer_config.json"), "utf8"));
  core = new HfCore(json, config);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("a byte-level checkpoint's tokenizer.json", () => {
  it("names a class transformers knows and carries the chat template", () => {
    expect(config.tokenizer_class).toBe("PreTrainedTokenizerFast");
    expect(config.auto_map).toEqual({ AutoTokenizer: [null, "tokenization_edgegym.EdgegymTokenizer"] });
    expect(typeof config.chat_template).toBe("string");
    expect(core.get_vocab(true).size).toBe(256 + 12);
  });

  it("gives @huggingface/tokenizers the byte tokenizer's ids on a varied set", () => {
    for (const text of VARIED) {
      const ids = core.encode(text, { add_special_tokens: false }).ids;
      expect(ids, JSON.stringify(text)).toEqual(byte.encode(text));
      expect(core.decode(ids, { skip_special_tokens: true })).toBe(byte.decode(ids));
    }
    // The control tokens decode as the byte tokenizer writes them: <|bos|> 257, "hi", <|end|> 263.
    const ids = [257, 104, 105, 263];
    expect(core.decode(ids, { skip_special_tokens: false })).toBe(byte.decode(ids, { keepControl: true }));
    expect(core.decode(ids, { skip_special_tokens: true })).toBe("hi");
  });

  it("renders conversations through its chat template to the byte tokenizer's ids", () => {
    const template = new Template(config.chat_template as string);
    const render = (messages: ChatMessage[], gen: boolean, withTools?: ToolSpec[]) =>
      core.encode(
        template.render({
          messages,
          tools: withTools ?? null,
          add_generation_prompt: gen,
          bos_token: config.bos_token,
          eos_token: config.eos_token,
        }),
        { add_special_tokens: false },
      ).ids;
    for (let n = 1; n <= conversation.length; n++) {
      const messages = conversation.slice(0, n);
      for (const gen of [true, false]) {
        expect(render(messages, gen), `${n} messages`).toEqual(
          byte.renderChat(messages, { addGenerationPrompt: gen }),
        );
        expect(render(messages, gen, tools)).toEqual(
          byte.renderChat(messages, { addGenerationPrompt: gen, tools }),
        );
      }
    }
  });

  it("matches every special's text in a text as one id, as ByteTokenizer does", () => {
    const text = `say <|user|>hi<|end|><|assistant|><tool_call>{}</tool_call> <|en d|> <|im_start|>`;
    expect(byte.encode("<|user|>")).toEqual([260]);
    expect(core.encode(text, { add_special_tokens: false }).ids).toEqual(byte.encode(text));
  });

  it("loads back as the byte tokenizer, as do older checkpoints that only carry the marker", async () => {
    const saved = await loadTokenizer(dir);
    expect(saved.ok && saved.value.kind).toBe("byte");
    const old = await mkdtemp(join(tmpdir(), "edgegym-byte-old-"));
    await writeFile(
      join(old, "tokenizer_config.json"),
      JSON.stringify({ tokenizer_class: "EdgegymByteTokenizer" }),
    );
    const loaded = await loadTokenizer(old);
    expect(loaded.ok && loaded.value.kind).toBe("byte");
    await rm(old, { recursive: true, force: true });
    const recipe = await loadTokenizer(join(import.meta.dirname, "../../recipes/checkpoints/calculator-sft"));
    expect(recipe.ok && recipe.value.kind).toBe("byte");
  });
});
