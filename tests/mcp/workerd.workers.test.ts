import { runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { calculator } from "../../environments/calculator/index.js";
import { createEnvironmentApp } from "../../environments/kit/index.js";
import { search } from "../../environments/search/index.js";
import { Manifest } from "../../shared/protocol.js";
import { verifyReceipt } from "../../shared/receipt.js";
import { connectMcp, playExpertOverMcp, resultText } from "./play.js";

/** The worker entry (wrangler.toml `main`) inside workerd, reached through SELF.fetch. */
const viaWorker = (input: string | URL | Request, init?: RequestInit) => SELF.fetch(input, init);
const runtime = {
  bindings: { EDGEGYM_SESSION_KEY: env.EDGEGYM_SESSION_KEY, EDGEGYM_SIGNING_KEY: env.EDGEGYM_SIGNING_KEY },
};

async function manifestOf(name: string): Promise<Manifest> {
  return Manifest.parse(await (await SELF.fetch(`http://edgegym.test/envs/${name}/v1/manifest`)).json());
}

describe("MCP on workerd", () => {
  it("plays a calculator episode by tool calls: reward 1 and a receipt that verifies", async () => {
    const { client } = await connectMcp("http://edgegym.test/envs/calculator/mcp?split=train&index=0", {
      fetch: viaWorker,
    });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["calculator", "submit_answer"]);
    const log = await playExpertOverMcp(client, calculator, runtime, { split: "train", index: 0 });
    // Task train/0: 4*7 + 2*7 = 28 + 14 = 42 spent of $90, so the change is 90 - 42 = 48.
    expect(log.calls.map((c) => c.text.split("\n")[0])).toEqual([
      "48",
      "the episode is over: reward 1, return 1 over 2 steps",
    ]);
    expect(log.final).toMatchObject({ reward: 1, steps: 2, done: true });
    const verified = await verifyReceipt(
      String(log.final.receipt),
      (await manifestOf("calculator")).publicKey,
    );
    expect(verified.ok && verified.value.task).toEqual({ split: "train", index: 0 });
    await client.close();
  });

  it("plays a search episode to reward 1", async () => {
    const { client } = await connectMcp("http://edgegym.test/envs/search/mcp?split=train&index=3", {
      fetch: viaWorker,
    });
    const log = await playExpertOverMcp(client, search, runtime, { split: "train", index: 3 });
    expect(log.final).toMatchObject({ reward: 1, done: true });
    expect((await verifyReceipt(String(log.final.receipt), (await manifestOf("search")).publicKey)).ok).toBe(
      true,
    );
    await client.close();
  });

  it("keeps the episode in a Durable Object: another app instance serves the session's next call", async () => {
    const { client, transport } = await connectMcp(
      "http://edgegym.test/envs/calculator/mcp?split=train&index=1",
      {
        fetch: viaWorker,
      },
    );
    await client.callTool({ name: "calculator", arguments: { expression: "38+3*5" } });
    // A second app has its own in-memory store; it finds the session only through the shared object.
    const other = createEnvironmentApp(calculator);
    const res = await other.fetch(
      new Request("http://other.test/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": String(transport.sessionId),
          "mcp-protocol-version": String(transport.protocolVersion),
        },
        // Task train/1: 38 apples + 3 packs of 5 = 38 + 15 = 53.
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 9,
          method: "tools/call",
          params: { name: "submit_answer", arguments: { answer: "#### 53" } },
        }),
      }),
      env,
    );
    const body = (await res.json()) as { result: { structuredContent: Record<string, unknown> } };
    expect(body.result.structuredContent).toMatchObject({ reward: 1, steps: 2, done: true });
    await expect(client.callTool({ name: "calculator", arguments: { expression: "1" } })).rejects.toThrow(
      /this episode is finished \(reward 1\)/,
    );
    await client.close();
  });

  it("deletes a session's Durable Object storage when its expiry alarm runs", async () => {
    const { client, transport } = await connectMcp(
      "http://edgegym.test/envs/calculator/mcp?split=train&index=4",
      {
        fetch: viaWorker,
      },
    );
    const sessions = (env as unknown as { EDGEGYM_MCP_SESSIONS: DurableObjectNamespace })
      .EDGEGYM_MCP_SESSIONS;
    const stub = sessions.get(sessions.idFromName(`calculator/${transport.sessionId}`));
    const keys = () =>
      runInDurableObject(stub, async (_o, state) => [...(await state.storage.list()).keys()]);
    // The episode, and its owner (the hub's caller key), whose ledger the alarm tells.
    expect(await keys()).toEqual(["episode", "owner"]);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await keys()).toEqual([]);
    await expect(client.listTools()).rejects.toThrow(/Session not found/);
  });

  it("answers an unknown tool and bad arguments with MCP errors, and expires sessions", async () => {
    let clock = Date.now();
    const app = createEnvironmentApp(calculator, { now: () => clock });
    const viaApp = async (input: string | URL | Request, init?: RequestInit) =>
      app.fetch(new Request(input, init), env);
    const { client } = await connectMcp("http://app.test/mcp?split=train&index=2", { fetch: viaApp });
    await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toThrow(/unknown tool "nope"/);
    const bad = await client.callTool({ name: "calculator", arguments: {} });
    expect([bad.isError, resultText(bad)]).toEqual([
      true,
      "Error: invalid arguments for calculator: expression: Invalid input: expected string, received undefined",
    ]);
    clock += calculator.limits.sessionTtlSeconds * 1000 + 1;
    await expect(client.callTool({ name: "calculator", arguments: { expression: "1" } })).rejects.toThrow(
      /Session not found: it expired or never existed/,
    );
  });
});
