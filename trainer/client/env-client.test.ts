import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createEnvironmentsHost } from "../../environments/host.js";
import { generateSecrets } from "../../environments/kit/secrets.js";
import { EnvClient } from "./env-client.js";
import { httpTransport } from "./transport.js";

type Fault = "reset" | "503" | "429" | "hang" | undefined;

/**
 * A real HTTP server in front of the built-in envs that injects faults on /step requests: `plan(n)`
 * picks the fault for the n-th step request. Records when each request arrived.
 */
async function flakyServer() {
  const app = createEnvironmentsHost();
  const bindings = await generateSecrets();
  const state = { plan: (_n: number, _body: string): Fault => undefined, steps: 0, arrivals: [] as number[] };
  const server: ServerType = serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (req, env: { incoming: { socket: { destroy(): void } } }) => {
      if (!req.url.endsWith("/v1/step")) return app.fetch(req, bindings);
      const body = await req.text();
      state.arrivals.push(Date.now());
      const fault = state.plan(state.steps++, body);
      if (fault === "reset") {
        env.incoming.socket.destroy();
        return new Promise<Response>(() => {});
      }
      if (fault === "hang") return new Promise<Response>(() => {});
      if (fault === "503") return new Response("busy", { status: 503 });
      if (fault === "429") return new Response("slow down", { status: 429, headers: { "retry-after": "1" } });
      return app.fetch(new Request(req.url, { method: "POST", headers: req.headers, body }), bindings);
    },
  });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return { state, base: `http://127.0.0.1:${port}/envs/calculator`, server };
}

/** Runs one calculator episode with the env's own expert; returns the summed reward. */
async function expertEpisode(client: EnvClient, index: number) {
  const start = await client.reset({ split: "train", index });
  if (!start.ok) return start;
  let session = start.value.session;
  let total = 0;
  for (let step = 0; step < 6; step++) {
    const expert = await client.expert(session);
    if (!expert.ok) return expert;
    const result = await client.step(session, expert.value.action);
    if (!result.ok) return result;
    total += result.value.reward;
    session = result.value.session;
    if (result.value.done) return { ok: true as const, value: total };
  }
  return { ok: true as const, value: total };
}

describe("EnvClient against a flaky real server", () => {
  let flaky: Awaited<ReturnType<typeof flakyServer>>;
  let client: EnvClient;
  beforeAll(async () => {
    flaky = await flakyServer();
  });
  afterEach(async () => {
    await client.close();
    flaky.state.steps = 0;
    flaky.state.arrivals = [];
  });
  afterAll(() => {
    (flaky.server as Server).closeAllConnections();
    flaky.server.close();
  });

  it("survives a reset, a 503 burst, a 429 with Retry-After and a hung step without losing an episode", async () => {
    const faults: Fault[] = ["reset", "503", "503", "503", "429", "hang"];
    flaky.state.plan = (n) => faults[n];
    client = new EnvClient(httpTransport(flaky.base, { connections: 4 }), {
      stepDeadlineMs: 400,
      retry: { maxRetries: 6, baseDelayMs: 10, maxDelayMs: 50, maxRetryAfterMs: 5_000 },
    });
    const results = await Promise.all([0, 1, 2, 3].map((i) => expertEpisode(client, i)));
    // Every episode finishes, and the expert solves each one.
    expect(results).toEqual([0, 1, 2, 3].map(() => ({ ok: true, value: 1 })));
    // One retry per injected fault; the hung step gives one timeout, and a step that a loaded machine
    // serves slower than the 400 ms deadline may add another, which the client retries just the same.
    expect(client.stats.retries).toMatchObject({ network: 1, server_error: 3, rate_limited: 1 });
    expect(client.stats.retries.timeout).toBeGreaterThanOrEqual(1);
    expect(Object.values(client.stats.failures).every((n) => n === 0)).toBe(true);
    // The request after the 429 came no sooner than its Retry-After of 1 s.
    const after429 = flaky.state.arrivals.slice(4);
    expect(Math.max(...after429.slice(1).map((t) => t - (after429[0] as number)))).toBeGreaterThanOrEqual(
      950,
    );
  });

  it("reports a step that keeps failing as an infrastructure failure while other episodes finish", async () => {
    // Episode 0's steps always get 503: its step body carries its own session token.
    let doomed: string | undefined;
    flaky.state.plan = (_n, body) => {
      const session = (JSON.parse(body) as { session: string }).session;
      doomed ??= session;
      return session === doomed ? "503" : undefined;
    };
    client = new EnvClient(httpTransport(flaky.base, { connections: 4 }), {
      stepDeadlineMs: 1_000,
      retry: { maxRetries: 3, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 1_000 },
    });
    const first = await expertEpisode(client, 0);
    const rest = await Promise.all([1, 2].map((i) => expertEpisode(client, i)));
    expect(first).toMatchObject({ ok: false, error: { kind: "server_error", status: 503, attempts: 4 } });
    expect(rest).toEqual([
      { ok: true, value: 1 },
      { ok: true, value: 1 },
    ]);
    expect(client.stats.failures.server_error).toBe(1);
    expect(client.stats.retries.server_error).toBe(3);
  });

  it("does not retry a rejected request (4xx problem)", async () => {
    flaky.state.plan = () => undefined;
    client = new EnvClient(httpTransport(flaky.base, { connections: 1 }));
    const res = await client.step("not-a-token", { content: "#### 1" });
    expect(res).toMatchObject({
      ok: false,
      error: { kind: "rejected", code: "invalid_session", attempts: 1 },
    });
    expect(client.stats.requests).toBe(1);
  });
});
