import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { err } from "../../shared/result.js";
import { formatEvalTable } from "./eval-config.js";
import { runEval } from "./evaluate.js";

type Req = {
  model: string;
  messages: { role: string; content?: string; tool_call_id?: string }[];
  tools: { function: { name: string } }[];
};

/**
 * A small OpenAI-compatible chat server: on a fresh conversation it calls the calculator; once it has
 * a tool result it answers "#### <result>".
 */
function fakeModelServer() {
  const seen: Req[] = [];
  const app = new Hono();
  app.post("/v1/chat/completions", async (c) => {
    const body = (await c.req.json()) as Req;
    seen.push(body);
    const last = body.messages.at(-1);
    const message =
      last?.role === "tool"
        ? { role: "assistant", content: `#### ${last.content}` }
        : {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: `call_${seen.length}`,
                type: "function",
                function: { name: "calculator", arguments: '{"expression":"6*7"}' },
              },
            ],
          };
    return c.json({
      id: "cmpl",
      object: "chat.completion",
      created: 0,
      model: body.model,
      choices: [{ index: 0, message, finish_reason: last?.role === "tool" ? "stop" : "tool_calls" }],
    });
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  return { seen, server };
}

describe("eval with a remote OpenAI-compatible policy", () => {
  const fake = fakeModelServer();
  let base = "";
  beforeAll(async () => {
    if (!fake.server.listening)
      await new Promise<void>((resolve) => fake.server.once("listening", () => resolve()));
    base = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => {
    fake.server.close();
  });

  it("drives episodes through tool calling over the manifest's tools and prints a table", async () => {
    const io = {
      log: () => {},
      saveCheckpoint: async () => err("unused"),
      loadCheckpoint: async () => err("unused"),
    };
    const result = await runEval(
      {
        env: "local:calculator",
        policy: `openai:${base}`,
        model: "tiny",
        split: "test",
        n: 3,
        maxSteps: 4,
        maxNewTokens: 32,
        temperature: 0,
        seed: 1,
        concurrency: 2,
        upload: false,
      },
      io,
    );
    if (!result.ok) throw new Error(result.error);
    expect(result.value).toMatchObject({ episodes: 3, steps: 2, toolCalls: 1, infraFailures: 0 });
    expect(fake.seen).toHaveLength(6);
    expect(fake.seen[0]?.model).toBe("tiny");
    expect(fake.seen[0]?.tools.map((t) => t.function.name)).toEqual(["calculator"]);
    // The second turn carries the env's tool message answering the model's call id.
    const tool = fake.seen.find((r) => r.messages.at(-1)?.role === "tool")?.messages.at(-1);
    expect(tool).toMatchObject({ role: "tool", content: "42" });
    expect(tool?.tool_call_id).toMatch(/^call_/);
    expect(formatEvalTable(result.value)).toMatch(/success rate\s+0\.000/);
  });
});
