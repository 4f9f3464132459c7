import OpenAI from "openai";
import type { ChatCompletionChunk, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../shared/protocol.js";
import { loadCheckpoint, saveCheckpoint } from "../checkpoint/checkpoint.js";
import type { Checkpoint } from "../checkpoint/types.js";
import { Batcher } from "./batcher.js";
import { type Serving, startServe } from "./server.js";

/**
 * The real server (`edgegym serve` minus the CLI) on a free port with the committed calculator SFT
 * checkpoint, driven by the official `openai` SDK. Expected texts come from the same checkpoint
 * sampled in-process on the prompt the chat template renders, so the test checks the server's
 * prompt, sampling and decoding rather than a stored string.
 */
const CHECKPOINT = "recipes/checkpoints/calculator-sft";
const messages: ChatMessage[] = [
  {
    role: "system",
    content:
      'Solve the problem. Call the calculator like <tool_call>{"name":"calculator","arguments":{"expression":"2*(3+4)"}}</tool_call> then end with: #### <number>',
  },
  { role: "user", content: "Ben has 21 shells and buys 4 packs of 9. How many shells now?" },
];
const asSdk = (m: ChatMessage[]) => m as ChatCompletionMessageParam[];

let serving: Serving;
let local: Checkpoint;
let openai: OpenAI;

/** Greedy in-process: what the server must answer for `msgs`. */
async function expected(msgs: ChatMessage[], maxTokens: number) {
  const prompt = local.tokenizer.renderChat(msgs, { addGenerationPrompt: true });
  const out = await local.model.sample([prompt], {
    maxNewTokens: maxTokens,
    temperature: 0,
    topP: 1,
    stopIds: local.tokenizer.stopIds,
    seed: 0,
  });
  const tokens = out.tokens[0] ?? [];
  return { prompt, tokens, text: local.tokenizer.decode(tokens), finished: out.finished[0] };
}

beforeAll(async () => {
  const io = { log: () => {}, saveCheckpoint, loadCheckpoint };
  const started = await startServe(
    { checkpoint: CHECKPOINT, port: 0, host: "127.0.0.1", backend: "wasm", maxBatch: 32 },
    io,
  );
  if (!started.ok) throw new Error(started.error);
  serving = started.value;
  const loaded = await loadCheckpoint(CHECKPOINT);
  if (!loaded.ok) throw new Error(loaded.error);
  local = loaded.value;
  openai = new OpenAI({ baseURL: `${serving.url}/v1`, apiKey: "unused", maxRetries: 0, timeout: 60_000 });
});

afterAll(async () => {
  await serving?.close();
  local?.model.dispose();
});

describe("edgegym serve through the openai SDK", () => {
  it("lists the one model", async () => {
    const models = await openai.models.list();
    expect(models.data.map((m) => [m.id, m.object, m.owned_by])).toEqual([
      ["calculator-sft", "model", "edgegym"],
    ]);
  });

  it("answers a plain chat as the checkpoint does in-process, with usage", async () => {
    const want = await expected(messages, 64);
    const got = await openai.chat.completions.create({
      model: "calculator-sft",
      messages: asSdk(messages),
      temperature: 0,
      max_tokens: 64,
    });
    const choice = got.choices[0];
    expect(choice?.message).toMatchObject({ role: "assistant", content: want.text });
    expect(choice?.message.tool_calls).toBeUndefined(); // no tools in the request: text as written
    expect(want.text).toContain("<tool_call>");
    expect(choice?.finish_reason).toBe(want.finished ? "stop" : "length");
    expect(got.usage).toEqual({
      prompt_tokens: want.prompt.length,
      completion_tokens: want.tokens.length,
      total_tokens: want.prompt.length + want.tokens.length,
    });
  });

  it("streams the same text in OpenAI chunks, then the finish reason and usage", async () => {
    const want = await expected(messages, 64);
    const stream = await openai.chat.completions.create({
      model: "calculator-sft",
      messages: asSdk(messages),
      temperature: 0,
      max_tokens: 64,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const deltas = chunks.flatMap((c) => c.choices.map((ch) => ch.delta.content ?? ""));
    expect(deltas.join("")).toBe(want.text);
    expect(deltas.filter((d) => d !== "").length).toBeGreaterThan(5); // token by token, not one blob
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.id === chunks[0]?.id)).toBe(true);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe(want.finished ? "stop" : "length");
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage?.completion_tokens).toBe(want.tokens.length);
  });

  it("cuts at a stop string and at max_tokens", async () => {
    const want = await expected(messages, 64);
    const stopped = await openai.chat.completions.create({
      model: "m",
      messages: asSdk(messages),
      temperature: 0,
      stop: ["calculator"],
    });
    expect(stopped.choices[0]?.message.content).toBe(want.text.slice(0, want.text.indexOf("calculator")));
    expect(stopped.choices[0]?.finish_reason).toBe("stop");
    const short = await openai.chat.completions.create({
      model: "m",
      messages: asSdk(messages),
      temperature: 0,
      max_tokens: 5,
    });
    expect(short.choices[0]?.message.content).toBe(local.tokenizer.decode(want.tokens.slice(0, 5)));
    expect(short.choices[0]?.finish_reason).toBe("length");
    expect(short.usage?.completion_tokens).toBe(5);
  });

  it("shares a generate call between requests without changing their greedy answers", async () => {
    // The server's Batcher over the real model; both are submitted before the call starts, so they
    // share it (serve-tools.test.ts shows the same over HTTP with a held model).
    const other: ChatMessage[] = [
      messages[0] as ChatMessage,
      { role: "user", content: "What is 12 times 7?" },
    ];
    const [a, b] = [await expected(messages, 48), await expected(other, 48)];
    const calls: number[] = [];
    const batcher = new Batcher(local.model, local.tokenizer.stopIds, 32, undefined, (rows) =>
      calls.push(rows),
    );
    const job = (prompt: number[]) => ({ prompt, n: 1, maxTokens: 48, temperature: 0, topP: 1 });
    const [ga, gb] = await Promise.all([batcher.submit(job(a.prompt)), batcher.submit(job(b.prompt))]);
    expect(calls).toEqual([2]);
    expect(ga?.[0]?.tokens).toEqual(a.tokens);
    expect(gb?.[0]?.tokens).toEqual(b.tokens);
    expect(a.prompt.length).not.toBe(b.prompt.length); // left padding was exercised
  });

  it("gives the same sample for the same seed", async () => {
    const ask = () =>
      openai.chat.completions.create({
        model: "m",
        messages: asSdk(messages),
        temperature: 1,
        top_p: 0.9,
        seed: 1234,
        n: 2,
        max_tokens: 24,
      });
    const [x, y] = [await ask(), await ask()];
    expect(x.choices.map((c) => c.message.content)).toEqual(y.choices.map((c) => c.message.content));
    expect(x.choices).toHaveLength(2);
  });

  it("refuses a request over the context with the numbers, in OpenAI's error shape", async () => {
    const promptTokens = (await expected(messages, 1)).prompt.length;
    const refused = await openai.chat.completions
      .create({ model: "m", messages: asSdk(messages), max_tokens: 384 })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    const e = refused as InstanceType<typeof OpenAI.BadRequestError>;
    expect([e.status, e.code, e.type, e.param]).toEqual([
      400,
      "context_length_exceeded",
      "invalid_request_error",
      "messages",
    ]);
    expect(e.message).toContain(
      `maximum context length is 384 tokens. However, you requested ${promptTokens + 384} tokens (${promptTokens} in the messages, 384 in the completion)`,
    );
  });

  it("names the bad parameter", async () => {
    const fails = async (body: Record<string, unknown>) => {
      const e = await openai.chat.completions.create(body as never).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(OpenAI.BadRequestError);
      const b = e as InstanceType<typeof OpenAI.BadRequestError>;
      return [b.code, b.param, b.message];
    };
    const base = { model: "m", messages: asSdk(messages) };
    expect(await fails({ ...base, temperature: 3 })).toEqual([
      "invalid_value",
      "temperature",
      "400 temperature: Too big: expected number to be <=2",
    ]);
    expect(await fails({ ...base, logprobs: true })).toEqual([
      "unrecognized_argument",
      "logprobs",
      "400 Unrecognized request argument supplied: logprobs (edgegym serve does not implement it)",
    ]);
    expect(await fails({ model: "m" })).toEqual([
      "missing_required_parameter",
      "messages",
      "400 messages: is required",
    ]);
    expect((await fails({ ...base, messages: [{ role: "user" }] })).slice(0, 2)).toEqual([
      "missing_required_parameter",
      "messages.0.content",
    ]);
  });

  it("answers bad JSON and unknown URLs with OpenAI error bodies", async () => {
    const bad = await fetch(`${serving.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{nope",
      signal: AbortSignal.timeout(30_000),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: {
        message: "We could not parse the JSON body of your request.",
        type: "invalid_request_error",
        param: null,
        code: "invalid_json",
      },
    });
    const missing = await fetch(`${serving.url}/v1/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
      signal: AbortSignal.timeout(30_000),
    });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("unknown_url");
  });
});
