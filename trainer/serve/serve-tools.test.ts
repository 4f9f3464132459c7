import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import OpenAI from "openai";
import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage, ToolSpec } from "../../shared/protocol.js";
import { ScriptedModel } from "../testing/scripted-model.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import { createServeApp } from "./app.js";
import { Batcher } from "./batcher.js";

/**
 * Tool calls and cross-client batching over real HTTP with the openai SDK. The model is scripted
 * (the calculator checkpoint is too small to call tools once the tool list is in its prompt), so
 * these tests check the server: the prompt it renders from OpenAI messages and tools, and how it
 * turns the model's Hermes text back into `tool_calls`.
 */
const tokenizer = new ByteTokenizer();
const CALL = '<tool_call>{"name":"calculator","arguments":{"expression":"21+4*9"}}</tool_call>';
const model = new ScriptedModel({ contextLength: 1024 }, (prompt) => {
  const text = tokenizer.decode(prompt, { keepControl: true });
  const reply = text.includes("<|tool|>")
    ? "#### 57"
    : text.includes("plain")
      ? "just text"
      : `Let me compute.\n${CALL}`;
  return [...tokenizer.encode(reply), tokenizer.special.endOfTurn];
});
const batcher = new Batcher(model, tokenizer.stopIds);
const app = createServeApp({
  modelId: "scripted",
  tokenizer,
  contextLength: 1024,
  batcher,
  host: "127.0.0.1",
});
const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
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
const toolSpecs = tools as ToolSpec[];
const question: ChatMessage[] = [
  { role: "system", content: "Use the calculator." },
  { role: "user", content: "Ben has 21 shells and buys 4 packs of 9. How many shells now?" },
];
const asSdk = (m: ChatMessage[]) => m as ChatCompletionMessageParam[];

beforeAll(async () => {
  await new Promise<void>((r) => (server.listening ? r() : server.once("listening", () => r())));
  openai = new OpenAI({
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    apiKey: "unused",
    maxRetries: 0,
    timeout: 30_000,
  });
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("edgegym serve: tools", () => {
  it("renders the tools through the chat template and returns the call as tool_calls", async () => {
    const got = await openai.chat.completions.create({ model: "scripted", messages: asSdk(question), tools });
    expect(model.calls.at(-1)?.prompts[0]).toEqual(
      tokenizer.renderChat(question, { addGenerationPrompt: true, tools: toolSpecs }),
    );
    const choice = got.choices[0];
    expect(choice?.finish_reason).toBe("tool_calls");
    expect(choice?.message.content).toBe("Let me compute.");
    expect(choice?.message.tool_calls).toHaveLength(1);
    const call = choice?.message.tool_calls?.[0];
    expect(call?.type === "function" && [call.function.name, JSON.parse(call.function.arguments)]).toEqual([
      "calculator",
      { expression: "21+4*9" },
    ]);
    expect(call?.id).toMatch(/^call_[0-9a-f]{24}$/);

    // The client sends the call and its result back: the prompt is the template's rendering of the
    // assistant turn with its call and of the tool turn.
    const followUp: ChatMessage[] = [
      ...question,
      {
        role: "assistant",
        content: "Let me compute.",
        tool_calls: [
          {
            id: call?.id ?? "",
            type: "function",
            function: { name: "calculator", arguments: '{"expression":"21+4*9"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: call?.id ?? "", content: "57" },
    ];
    const answer = await openai.chat.completions.create({
      model: "scripted",
      messages: asSdk(followUp),
      tools,
    });
    expect(model.calls.at(-1)?.prompts[0]).toEqual(
      tokenizer.renderChat(followUp, { addGenerationPrompt: true, tools: toolSpecs }),
    );
    expect(answer.choices[0]?.message).toMatchObject({ content: "#### 57" });
    expect(answer.choices[0]?.finish_reason).toBe("stop");
  });

  it("streams the text before the call, then the call as a tool_calls delta", async () => {
    const stream = await openai.chat.completions.create({
      model: "scripted",
      messages: asSdk(question),
      tools,
      stream: true,
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const deltas = chunks.map((c) => c.choices[0]?.delta);
    expect(deltas.map((d) => d?.content ?? "").join("")).toBe("Let me compute.\n");
    // No piece of the `<tool_call>` markup leaks into the content while it is being written.
    expect(deltas.some((d) => d?.content?.includes("<"))).toBe(false);
    const calls = deltas.flatMap((d) => d?.tool_calls ?? []);
    expect(calls.map((c) => [c.index, c.function?.name, c.function?.arguments])).toEqual([
      [0, "calculator", '{"expression":"21+4*9"}'],
    ]);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("tool_calls");
  });

  it("leaves the text alone when the request has no tools or tool_choice none", async () => {
    const none = await openai.chat.completions.create({
      model: "scripted",
      messages: asSdk(question),
      tools,
      tool_choice: "none",
    });
    expect(none.choices[0]?.message.content).toBe(`Let me compute.\n${CALL}`);
    expect(none.choices[0]?.message.tool_calls).toBeUndefined();
    const noTools = await openai.chat.completions.create({ model: "scripted", messages: asSdk(question) });
    expect(model.calls.at(-1)?.prompts[0]).toEqual(
      tokenizer.renderChat(question, { addGenerationPrompt: true }),
    );
    expect(noTools.choices[0]?.finish_reason).toBe("stop");
  });

  it("batches clients whose requests wait while the model is busy into one call", async () => {
    model.hold();
    const ask = (content: string) =>
      openai.chat.completions.create({
        model: "scripted",
        messages: [{ role: "user", content }],
        temperature: 0,
      });
    const calls = model.calls.length;
    const first = ask("plain 1");
    await model.entered;
    const others = [ask("plain 2"), ask("plain 3"), ask("plain 4")];
    // Wait (on the event loop, not a clock) until all three are queued behind the held call.
    while (batcher.waiting < 3) await new Promise((r) => setImmediate(r));
    model.release();
    const answers = await Promise.all([first, ...others]);
    expect(answers.map((a) => a.choices[0]?.message.content)).toEqual(Array(4).fill("just text"));
    expect(model.calls.slice(calls).map((c) => c.prompts.length)).toEqual([1, 3]);
  });
});
