import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { err } from "../../shared/result.js";
import { fakeChatModel } from "../testing/fake-chat-model.js";
import { formatEvalTable } from "./config.js";
import { runEval } from "./evaluate.js";

describe("eval with a remote OpenAI-compatible policy", () => {
  const fake = fakeChatModel("6*7");
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
