import { runDurableObjectAlarm, SELF } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createHubApp } from "../../hub/app.js";
import { hubClient, newTeam, uniqueName } from "../hub/client.js";

/**
 * The hub's own `/envs/<name>/mcp` inside workerd, on its real Durable Objects: the hub's rate limit
 * and a bound on the sessions (objects) one caller holds. Each test is its own caller (an address in
 * 203.0.113.0/24, documentation's range), so ledgers left by one test do not meet another's.
 */
const hub = createHubApp();
const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};
const LIST = { jsonrpc: "2.0", id: 3, method: "tools/list" };

function post(
  ip: string,
  body: unknown,
  bindings: Record<string, unknown>,
  headers: Record<string, string> = {},
  path = "/envs/calculator/mcp?split=train&index=0",
) {
  return hub.fetch(
    new Request(`http://hub.test${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "cf-connecting-ip": ip,
        ...headers,
      },
      body: JSON.stringify(body),
    }),
    { ...env, ...bindings },
  );
}

const call = (name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name, arguments: args },
});
const sessionHeaders = (id: string) => ({ "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" });

describe("the hub's /envs/<name>/mcp under abuse", () => {
  it("applies the hub's rate limit per caller", async () => {
    const limits = { HUB_RATE_LIMIT_REQUESTS: "5", HUB_RATE_LIMIT_PERIOD: "60" };
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await post("203.0.113.1", INIT, limits)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const limited = await post("203.0.113.1", INIT, limits);
    expect([limited.status, Number(limited.headers.get("retry-after")) > 0]).toEqual([429, true]);
    expect(((await limited.json()) as { code: string }).code).toBe("rate_limited");
    // Another caller has its own count.
    expect((await post("203.0.113.2", INIT, limits)).status).toBe(200);
  });

  it("bounds the Durable Object sessions one caller holds; finished, deleted and expired ones make room", async () => {
    const bound = { EDGEGYM_MCP_SESSIONS_PER_CLIENT: "3" };
    const ip = "203.0.113.3";
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await post(ip, INIT, bound);
      expect(res.status).toBe(200);
      ids.push(String(res.headers.get("mcp-session-id")));
    }
    const refused = await post(ip, INIT, bound);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("mcp-session-id")).toBeNull();
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(3000);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/holds 3 open MCP sessions/);
    // Another caller is not held by this one's sessions.
    expect((await post("203.0.113.4", INIT, bound)).status).toBe(200);

    // Finishing one (task train/0's answer is 48) lets the next session take its place.
    const [first, second, third] = ids as [string, string, string];
    const end = await post(ip, call("submit_answer", { answer: "#### 48" }), bound, sessionHeaders(first));
    expect(((await end.json()) as { result: { structuredContent: { done: boolean } } }).result).toMatchObject(
      {
        structuredContent: { done: true },
      },
    );
    const fourth = await post(ip, INIT, bound);
    expect(fourth.status).toBe(200);
    expect((await post(ip, INIT, bound)).status).toBe(429);
    // The finished session was the one evicted; the live ones still answer.
    const gone = await post(ip, LIST, bound, sessionHeaders(first));
    expect(gone.status).toBe(404);
    const live = await post(ip, LIST, bound, sessionHeaders(second));
    expect(live.status).toBe(200);

    // DELETE ends one: a place frees up.
    const del = await hub.fetch(
      new Request("http://hub.test/envs/calculator/mcp", {
        method: "DELETE",
        headers: { "cf-connecting-ip": ip, ...sessionHeaders(second) },
      }),
      { ...env, ...bound },
    );
    expect(del.status).toBe(200);
    expect((await post(ip, INIT, bound)).status).toBe(200);
    expect((await post(ip, INIT, bound)).status).toBe(429);

    // A session's expiry alarm frees its place too.
    const sessions = (env as unknown as { EDGEGYM_MCP_SESSIONS: DurableObjectNamespace })
      .EDGEGYM_MCP_SESSIONS;
    expect(await runDurableObjectAlarm(sessions.get(sessions.idFromName(`calculator/${third}`)))).toBe(true);
    expect((await post(ip, INIT, bound)).status).toBe(200);
  });

  it("a refused initialize (406 for Accept: */*) creates no session and names none", async () => {
    const res = await SELF.fetch("http://edgegym.test/envs/calculator/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "*/*" },
      body: JSON.stringify(INIT),
    });
    expect(res.status).toBe(406);
    expect(res.headers.get("mcp-session-id")).toBeNull();
  });

  it("the same bound holds for a built-in reached through the gateway's /mcp", async () => {
    const api = hubClient(async (r) => hub.fetch(r, env));
    const a = await newTeam(api);
    const name = uniqueName("calc");
    await api.call("POST", "/v1/envs", {
      token: a.token,
      body: { owner: a.team, name, visibility: "public" },
    });
    const pub = await api.call("POST", `/v1/envs/${a.team}/${name}/versions`, {
      token: a.token,
      body: { version: "1.0.0", builtin: "calculator" },
    });
    expect(pub.status).toBe(201);
    const bound = { EDGEGYM_MCP_SESSIONS_PER_CLIENT: "2" };
    const path = `/v1/envs/${a.team}/${name}@1.0.0/mcp?split=train&index=0`;
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await post("203.0.113.9", INIT, bound, {}, path)).status);
    expect(statuses).toEqual([200, 200, 429]);
    // The caller's sessions at the hub's own /envs/calculator/mcp count toward the same bound.
    expect((await post("203.0.113.9", INIT, bound)).status).toBe(429);
  });
});
