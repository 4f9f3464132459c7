import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinEnvironments } from "../../environments/builtin.js";
import { calculator } from "../../environments/calculator/index.js";
import { proceduralTask } from "../../environments/calculator/tasks.js";
import { createEnvironmentsHost } from "../../environments/host.js";
import { generateSecrets } from "../../environments/kit/index.js";
import { type Listening, listen } from "../../environments/node/listen.js";
import { search } from "../../environments/search/index.js";
import { webshop } from "../../environments/webshop/index.js";
import { Manifest } from "../../shared/protocol.js";
import { verifyReceipt } from "../../shared/receipt.js";
import { connectMcp, playExpertOverMcp, resultText } from "./play.js";

/** Every built-in env on a real HTTP server on Node, with a clock the tests move. */
let server: Listening;
let bindings: Record<string, string>;
let clock = Date.now();

beforeAll(async () => {
  bindings = await generateSecrets();
  server = await listen(createEnvironmentsHost(builtinEnvironments, { now: () => clock }), bindings);
});
afterAll(() => server.close());

const base = (env: string) => `${server.url}/envs/${env}`;

async function manifestOf(env: string): Promise<Manifest> {
  return Manifest.parse(await (await fetch(`${base(env)}/v1/manifest`)).json());
}

describe("MCP on the Node host", () => {
  it("plays a calculator episode by tool calls: reward 1 and a receipt that verifies", async () => {
    const { client, transport } = await connectMcp(`${base("calculator")}/mcp?split=train&index=0`);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);

    const { tools } = await client.listTools();
    const manifest = await manifestOf("calculator");
    expect(tools.map((t) => t.name)).toEqual(["calculator", "submit_answer"]);
    // The same JSON Schema as the manifest's.
    expect(tools[0]?.inputSchema).toEqual({ type: "object", ...manifest.tools[0]?.function.parameters });

    // The task is a prompt and a resource.
    const question = proceduralTask("train", 0).question;
    const prompt = await client.getPrompt({ name: "task" });
    expect(prompt.messages).toEqual([{ role: "user", content: { type: "text", text: question } }]);
    const resource = await client.readResource({ uri: "edgegym://task" });
    expect(resource.contents[0]).toMatchObject({ uri: "edgegym://task", text: question });
    expect(client.getInstructions()).toContain(question);

    const log = await playExpertOverMcp(client, calculator, { bindings }, { split: "train", index: 0 });
    // Task train/0: "4 pies at $7 and 2 cakes at $7, paying $90": 4*7 + 2*7 = 28 + 14 = 42; 90 - 42 = 48.
    expect(log.calls.map((c) => [c.name, c.arguments, c.isError])).toEqual([
      ["calculator", { expression: "90-(4*7+2*7)" }, false],
      ["submit_answer", { answer: "#### 48" }, false],
    ]);
    expect(log.calls[0]?.text).toBe("48");
    expect(log.final).toMatchObject({ reward: 1, return: 1, steps: 2, done: true, truncated: false });

    const verified = await verifyReceipt(String(log.final.receipt), manifest.publicKey);
    expect(verified).toEqual({
      ok: true,
      value: expect.objectContaining({
        env: "calculator",
        contentHash: manifest.contentHash,
        episodeId: log.final.episodeId,
        task: { split: "train", index: 0 },
        steps: 2,
        return: 1,
        finalReward: 1,
      }),
    });

    // The episode is over: a further call is an MCP error that says so.
    await expect(client.callTool({ name: "calculator", arguments: { expression: "1+1" } })).rejects.toThrow(
      /this episode is finished \(reward 1\)/,
    );
    await client.close();
  });

  it("plays a search episode to reward 1", async () => {
    const { client } = await connectMcp(`${base("search")}/mcp?split=train&index=3`);
    const log = await playExpertOverMcp(client, search, { bindings }, { split: "train", index: 3 });
    expect(log.calls.at(-1)?.name).toBe("submit_answer");
    expect(log.calls.slice(0, -1).every((c) => c.name === "search" && !c.isError)).toBe(true);
    expect(log.final).toMatchObject({ reward: 1, done: true });
    const verified = await verifyReceipt(String(log.final.receipt), (await manifestOf("search")).publicKey);
    expect(verified.ok && verified.value.task).toEqual({ split: "train", index: 3 });
    await client.close();
  });

  it("ends a WebShop episode with the tool that buys, which returns the reward and receipt", async () => {
    // Train goal 1: one the expert buys a product scored 1 for (it does on 82 of train goals 0..99).
    const { client } = await connectMcp(`${base("webshop")}/mcp?split=train&index=1`);
    const log = await playExpertOverMcp(client, webshop, { bindings }, { split: "train", index: 1 });
    expect(log.calls.every((c) => c.name === "env_step")).toBe(true);
    expect(log.calls.at(-1)?.arguments).toEqual({ command: "click[buy now]" });
    expect(log.final).toMatchObject({ reward: 1, done: true, truncated: false });
    expect((await verifyReceipt(String(log.final.receipt), (await manifestOf("webshop")).publicKey)).ok).toBe(
      true,
    );
    await client.close();
  });

  it("answers an unknown tool with an MCP error and bad arguments with an error result, costing no step", async () => {
    const { client } = await connectMcp(`${base("calculator")}/mcp?split=train&index=1`);
    await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toThrow(
      'MCP error -32602: unknown tool "nope"; this environment has calculator, submit_answer',
    );
    const bad = await client.callTool({ name: "calculator", arguments: { expression: 7 } });
    expect(bad.isError).toBe(true);
    expect(resultText(bad)).toMatch(/^Error: invalid arguments for calculator: expression: /);
    const noAnswer = await client.callTool({ name: "submit_answer", arguments: {} });
    expect([noAnswer.isError, resultText(noAnswer)]).toEqual([
      true,
      'Error: submit_answer takes {"answer": "<text>"}',
    ]);
    // A tool that fails on its input is a step (the env's own error text), flagged isError.
    const failing = await client.callTool({ name: "calculator", arguments: { expression: "1/0" } });
    expect(failing.isError).toBe(true);
    expect(failing.structuredContent).toMatchObject({ steps: 1, done: false });
    // Task train/1: 38 apples + 3 packs of 5 = 38 + 15 = 53. Two steps: the failing call and this answer.
    const end = await client.callTool({ name: "submit_answer", arguments: { answer: "#### 53" } });
    expect(end.structuredContent).toMatchObject({ reward: 1, steps: 2, done: true });
    await client.close();
  });

  it("chooses the task in initialize's capabilities, and refuses an unknown split at initialize", async () => {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StreamableHTTPClientTransport } = await import(
      "@modelcontextprotocol/sdk/client/streamableHttp.js"
    );
    const client = new Client(
      { name: "t", version: "1" },
      { capabilities: { experimental: { "edgegym/task": { split: "test", index: 0 } } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base("calculator")}/mcp`)));
    const prompt = await client.getPrompt({ name: "task" });
    expect(prompt.description).toBe("calculator test task 0");
    await client.close();

    await expect(connectMcp(`${base("calculator")}/mcp?split=nope`)).rejects.toThrow(
      /unknown_split: unknown split "nope"; this environment has train, test/,
    );
    await expect(connectMcp(`${base("calculator")}/mcp?index=-1`)).rejects.toThrow(
      /invalid task choice: index: /,
    );
  });

  it("expires a session after the env's session TTL and forgets a terminated one", async () => {
    const { client } = await connectMcp(`${base("calculator")}/mcp?split=train&index=2`);
    await client.callTool({ name: "calculator", arguments: { expression: "146-2*2" } });
    clock += calculator.limits.sessionTtlSeconds * 1000 + 1;
    await expect(client.callTool({ name: "calculator", arguments: { expression: "1" } })).rejects.toThrow(
      /Session not found: it expired or never existed/,
    );

    const second = await connectMcp(`${base("calculator")}/mcp?split=train&index=2`);
    await second.transport.terminateSession();
    const res = await fetch(`${base("calculator")}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": String(second.transport.sessionId ?? "gone"),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(404);
  });

  it("answers malformed requests with JSON-RPC errors, never a crash", async () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${base("calculator")}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body,
      });
    const notJson = await post("{");
    expect([notJson.status, (await notJson.json()).error.code]).toEqual([400, -32700]);
    const noSession = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
    expect([noSession.status, (await noSession.json()).error.message]).toEqual([
      400,
      "Bad Request: Mcp-Session-Id header is required (send initialize first)",
    ]);
    const get = await fetch(`${base("calculator")}/mcp`);
    expect([get.status, get.headers.get("allow")]).toEqual([405, "POST, DELETE"]);
  });
});
