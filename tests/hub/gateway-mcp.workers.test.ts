import { SELF } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { calculator } from "../../environments/calculator/index.js";
import { createHubApp } from "../../hub/app.js";
import { Manifest } from "../../shared/protocol.js";
import { verifyReceipt } from "../../shared/receipt.js";
import { connectMcp, playExpertOverMcp } from "../mcp/play.js";
import { hubClient, newEnv, newTeam } from "./client.js";

const hub = hubClient((r) => SELF.fetch(r));
const viaHub = (input: string | URL | Request, init?: RequestInit) => SELF.fetch(input, init);
const runtime = {
  bindings: { EDGEGYM_SESSION_KEY: env.EDGEGYM_SESSION_KEY, EDGEGYM_SIGNING_KEY: env.EDGEGYM_SIGNING_KEY },
};

describe("MCP through the hub gateway", () => {
  it("plays a calculator episode on a private env with the owner's token: reward 1, receipt verifies", async () => {
    const a = await newTeam(hub);
    const { name } = await newEnv(hub, a, { visibility: "private" });
    const base = `http://hub.test/v1/envs/${a.team}/${name}@1.0.0`;
    const { client, transport } = await connectMcp(`${base}/mcp?split=train&index=0`, {
      fetch: viaHub,
      headers: { authorization: `Bearer ${a.token}` },
    });
    expect(transport.sessionId).toBeTruthy();
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["calculator", "submit_answer"]);

    const log = await playExpertOverMcp(client, calculator, runtime, { split: "train", index: 0 });
    // Task train/0: 4*7 + 2*7 = 28 + 14 = 42; the change from $90 is 90 - 42 = 48.
    expect(log.calls.map((c) => [c.name, c.arguments])).toEqual([
      ["calculator", { expression: "90-(4*7+2*7)" }],
      ["submit_answer", { answer: "#### 48" }],
    ]);
    expect(log.final).toMatchObject({ reward: 1, return: 1, steps: 2, done: true });

    const m = await hub.call("GET", `/v1/envs/${a.team}/${name}@1.0.0/v1/manifest`, { token: a.token });
    const manifest = Manifest.parse(m.body);
    const verified = await verifyReceipt(String(log.final.receipt), manifest.publicKey);
    expect(
      verified.ok && [verified.value.env, verified.value.contentHash, verified.value.finalReward],
    ).toEqual(["calculator", manifest.contentHash, 1]);
    await client.close();
  });

  it("forwards to an external endpoint's /mcp, query and session header included", async () => {
    // A hub whose outbound fetches reach this worker: the endpoint is the worker's own /envs/calculator.
    const external = createHubApp({ fetch: (r) => SELF.fetch(r) });
    const viaExternal = async (input: string | URL | Request, init?: RequestInit) =>
      external.fetch(new Request(input, init), env);
    const a = await newTeam(hub);
    const { name } = await newEnv(hub, a, { visibility: "private" });
    const published = await hubClient(async (r) => external.fetch(r, env)).call(
      "POST",
      `/v1/envs/${a.team}/${name}/versions`,
      { token: a.token, body: { version: "2.0.0", endpoint: "http://envs.test/envs/calculator" } },
    );
    expect(published.status).toBe(201);
    const { client } = await connectMcp(
      `http://hub.test/v1/envs/${a.team}/${name}@2.0.0/mcp?split=train&index=5`,
      {
        fetch: viaExternal,
        headers: { authorization: `Bearer ${a.token}` },
      },
    );
    const log = await playExpertOverMcp(client, calculator, runtime, { split: "train", index: 5 });
    // Task train/5: 10 stamps and 8 packs of 10: 10 + 8*10 = 10 + 80 = 90.
    expect(log.calls.map((c) => c.text.split("\n")[0])).toEqual([
      "90",
      "the episode is over: reward 1, return 1 over 2 steps",
    ]);
    await client.close();
  });

  it("is 404 without a token that may read the env, and passes the env's MCP errors through", async () => {
    const a = await newTeam(hub);
    const b = await newTeam(hub);
    const { name } = await newEnv(hub, a, { visibility: "private" });
    const url = `http://hub.test/v1/envs/${a.team}/${name}@latest/mcp`;
    for (const token of [undefined, b.token]) {
      const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
      await expect(connectMcp(url, { fetch: viaHub, headers })).rejects.toThrow(/404/);
    }
    const { client } = await connectMcp(`${url}?split=train&index=1`, {
      fetch: viaHub,
      headers: { authorization: `Bearer ${a.token}` },
    });
    await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toThrow(/unknown tool "nope"/);
    await expect(
      connectMcp(`${url}?split=nope`, { fetch: viaHub, headers: { authorization: `Bearer ${a.token}` } }),
    ).rejects.toThrow(/unknown_split/);
    const gone = await SELF.fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${a.token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": "no-such-session",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { error: { message: string } }).error.message).toMatch(
      /^Session not found/,
    );
    await client.close();
  });
});
