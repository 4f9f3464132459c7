import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { calculator } from "../../environments/calculator/index.js";
import { createEnvironmentApp, generateSecrets } from "../../environments/kit/index.js";
import { type McpEpisode, MemorySessionStore } from "../../environments/kit/mcp/session-store.js";
import { faultyEnvironment, INTERNAL_SECRET } from "../conformance/faulty-env.js";
import { connectMcp, resultText } from "./play.js";

const bindings = await generateSecrets();

function inProcess(app: ReturnType<typeof createEnvironmentApp>) {
  return async (input: string | URL | Request, init?: RequestInit) =>
    app.fetch(new Request(input, init), bindings);
}

describe("MCP under the protocol's limits and faults", () => {
  it("applies the step limit and deadline, and keeps internal errors inside", async () => {
    const app = createEnvironmentApp(faultyEnvironment);
    const { client } = await connectMcp("http://faulty.test/mcp?index=1", { fetch: inProcess(app) });
    // `hang` never returns: the env's 300 ms step deadline answers it, as an MCP error.
    await expect(client.callTool({ name: "hang", arguments: {} })).rejects.toThrow(
      "MCP error -32603: step_timeout: the step took longer than 300 ms",
    );
    const boom = await client.callTool({ name: "boom", arguments: {} });
    expect([boom.isError, resultText(boom)]).toEqual([true, "Error: boom failed: the boom tool exploded"]);
    await client.callTool({ name: "boom", arguments: {} });
    // maxSteps is 3 and the timed-out call took none: boom, boom, boom is the last step, truncated.
    const last = await client.callTool({ name: "boom", arguments: {} });
    expect(last.structuredContent).toMatchObject({ steps: 3, done: true, truncated: true, reward: 0 });
    expect(resultText(last)).toContain("the step limit was reached: reward 0, return 0 over 3 steps");
    expect(String((last.structuredContent as { receipt?: string }).receipt).split(".")).toHaveLength(3);

    const second = await connectMcp("http://faulty.test/mcp", { fetch: inProcess(app) });
    const crash = second.client.callTool({ name: "submit_answer", arguments: { answer: "crash" } });
    await expect(crash).rejects.toThrow("MCP error -32603: internal error while stepping the episode");
    await expect(crash).rejects.not.toThrow(INTERNAL_SECRET);
  });

  it("lets only one of two racing calls on a session advance it", async () => {
    // A store whose updates wait until both calls have stepped, so both stepped from the same token.
    const inner = new MemorySessionStore();
    let arrived = 0;
    let release = () => {};
    const bothHere = new Promise<void>((r) => {
      release = r;
    });
    const store = Object.assign(Object.create(inner) as MemorySessionStore, {
      create: inner.create.bind(inner),
      get: inner.get.bind(inner),
      delete: inner.delete.bind(inner),
      update: async (id: string, expected: number, next: McpEpisode, now: number) => {
        if (++arrived === 2) release();
        await bothHere;
        return inner.update(id, expected, next, now);
      },
    });
    const app = createEnvironmentApp(calculator, { mcp: { store } });
    const { client } = await connectMcp("http://calc.test/mcp?split=train&index=0", {
      fetch: inProcess(app),
    });
    const results = await Promise.allSettled([
      client.callTool({ name: "calculator", arguments: { expression: "1+1" } }),
      client.callTool({ name: "calculator", arguments: { expression: "2+2" } }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(String(lost.reason)).toContain("another call on this session advanced the episode first");
  });

  it("answers any JSON body, with or without a live session, without a server error", async () => {
    const app = createEnvironmentApp(calculator);
    const fetcher = inProcess(app);
    const { transport } = await connectMcp("http://calc.test/mcp?split=train&index=0", { fetch: fetcher });
    const rpc = fc.record(
      {
        jsonrpc: fc.oneof(fc.constant("2.0"), fc.string()),
        id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
        method: fc.constantFrom(
          "initialize",
          "tools/call",
          "tools/list",
          "prompts/get",
          "resources/read",
          "nope",
        ),
        params: fc.oneof(
          fc.jsonValue(),
          fc.record({ name: fc.constantFrom("calculator", "submit_answer", "x"), arguments: fc.jsonValue() }),
          fc.record({
            capabilities: fc.record({ experimental: fc.record({ "edgegym/task": fc.jsonValue() }) }),
          }),
        ),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(rpc, fc.jsonValue()), fc.boolean(), async (body, withSession) => {
        const res = await fetcher("http://calc.test/mcp?index=1", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            ...(withSession ? { "mcp-session-id": String(transport.sessionId) } : {}),
          },
          body: JSON.stringify(body),
        });
        expect(res.status).toBeLessThan(500);
        await res.text();
      }),
      { numRuns: 200 },
    );
  });

  it("refuses a body over 1 MiB before parsing it", async () => {
    const app = createEnvironmentApp(calculator);
    const res = await inProcess(app)("http://calc.test/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "x".repeat(1024 * 1024 + 1),
    });
    expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([413, "body_too_large"]);
  });
});
