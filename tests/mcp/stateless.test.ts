import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinEnvironments } from "../../environments/builtin.js";
import { createEnvironmentsHost } from "../../environments/host.js";
import { generateSecrets } from "../../environments/kit/index.js";
import { type Listening, listen } from "../../environments/node/listen.js";
import { Manifest } from "../../shared/protocol.js";
import { verifyReceipt } from "../../shared/receipt.js";
import { connectMcp, connectStatelessMcp, resultText } from "./play.js";

/** Every built-in env on a real HTTP server on Node, reached by the official v2 TypeScript client. */
let server: Listening;
let requests: { method: string; sessionId: string | null; body: string }[] = [];

beforeAll(async () => {
  server = await listen(createEnvironmentsHost(builtinEnvironments), await generateSecrets());
});
afterAll(() => server.close());

const base = (env: string) => `${server.url}/envs/${env}`;

/** A fetch that records what the client sent, so the test sees the wire and not only the SDK's view. */
const recording = async (input: string | URL | Request, init?: RequestInit) => {
  const headers = new Headers(init?.headers);
  requests.push({
    method: init?.method ?? "GET",
    sessionId: headers.get("mcp-session-id"),
    body: typeof init?.body === "string" ? init.body : "",
  });
  return fetch(input, init);
};

async function connectModern(env: string): Promise<Client> {
  requests = [];
  return connectStatelessMcp(`${base(env)}/mcp`, { fetch: recording });
}

type Structured = Record<string, unknown>;
const structured = (r: unknown) => (r as { structuredContent: Structured }).structuredContent;

describe("MCP's stateless revision (2026-07-28) beside the sessionful one", () => {
  it("answers server/discover, so a negotiating client goes modern with no failed first request", async () => {
    const client = await connectModern("calculator");
    expect(client.getProtocolEra()).toBe("modern");
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    expect(client.getDiscoverResult()?._meta?.["io.modelcontextprotocol/serverInfo"]).toMatchObject({
      name: "edgegym/calculator",
    });
    // The connect sent one request, server/discover, and it was answered (no initialize after it).
    expect(requests.map((r) => JSON.parse(r.body).method)).toEqual(["server/discover"]);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["start_episode", "calculator", "submit_answer"]);
    expect(tools[1]?.inputSchema.required).toEqual(["expression", "episode_token"]);
    await client.close();
  });

  it("plays a calculator episode by passing the episode token: reward 1, a receipt that verifies, no session", async () => {
    const client = await connectModern("calculator");
    const started = await client.callTool({ name: "start_episode", arguments: { split: "train", index: 0 } });
    // Task train/0: "4 pies at $7 and 2 cakes at $7, paying $90": 4*7 + 2*7 = 28 + 14 = 42; 90 - 42 = 48.
    expect(resultText(started)).toContain("paying $90");
    let token = String(structured(started).episode_token);
    const calc = await client.callTool({
      name: "calculator",
      arguments: { expression: "90-(4*7+2*7)", episode_token: token },
    });
    expect(resultText(calc)).toMatch(/^48\n\nepisode_token: /);
    expect(structured(calc)).toMatchObject({ reward: 0, done: false });
    token = String(structured(calc).episode_token);
    const end = await client.callTool({
      name: "submit_answer",
      arguments: { answer: "#### 48", episode_token: token },
    });
    expect(structured(end)).toMatchObject({ reward: 1, done: true, truncated: false, success: true });
    const manifest = Manifest.parse(await (await fetch(`${base("calculator")}/v1/manifest`)).json());
    const verified = await verifyReceipt(String(structured(end).receipt), manifest.publicKey);
    expect(verified.ok && [verified.value.task, verified.value.steps, verified.value.finalReward]).toEqual([
      { split: "train", index: 0 },
      2,
      1,
    ]);
    // No request named a session, and the server never gave one.
    expect(requests.every((r) => r.sessionId === null)).toBe(true);
    // A finished episode returns no token; an earlier one replays the episode from its state (a fork).
    const again = await client.callTool({
      name: "submit_answer",
      arguments: { answer: "#### 47", episode_token: token },
    });
    expect(structured(again)).toMatchObject({ reward: 0, done: true });
    await client.close();
  });

  it("refuses a tampered token, an unknown tool and missing arguments clearly, costing no step", async () => {
    const client = await connectModern("calculator");
    const started = await client.callTool({ name: "start_episode", arguments: { split: "train", index: 1 } });
    const token = String(structured(started).episode_token);
    await expect(
      client.callTool({ name: "calculator", arguments: { expression: "1+1", episode_token: `${token}x` } }),
    ).rejects.toThrow(/invalid_session/);
    await expect(client.callTool({ name: "nope", arguments: { episode_token: token } })).rejects.toThrow(
      'unknown tool "nope"; this environment has start_episode, calculator, submit_answer',
    );
    const bad = await client.callTool({
      name: "calculator",
      arguments: { expression: 7, episode_token: token },
    });
    expect(bad.isError).toBe(true);
    const badTask = await client.callTool({ name: "start_episode", arguments: { split: "nope" } });
    expect([badTask.isError, resultText(badTask)]).toEqual([true, expect.stringContaining("nope")]);
    await client.close();
  });

  it("still serves the sessionful revision to a client that initializes", async () => {
    const { client, transport } = await connectMcp(`${base("calculator")}/mcp?split=train&index=0`);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["calculator", "submit_answer"]);
    await client.close();
  });

  it("answers a modern request sent as text/plain with 415, before any server runs", async () => {
    const res = await fetch(`${base("calculator")}/mcp`, {
      method: "POST",
      headers: { "content-type": "text/plain", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "server/discover",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    expect(res.status).toBe(415);
  });
});
