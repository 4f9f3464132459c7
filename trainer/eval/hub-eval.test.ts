import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEnvironmentsHost } from "../../environments/host.js";
import { generateSecrets } from "../../environments/kit/secrets.js";
import { CreateEval, type EvalRun } from "../../shared/evals.js";
import { err } from "../../shared/result.js";
import { Transcript } from "../../shared/transcript.js";
import { fakeChatModel } from "../testing/fake-chat-model.js";
import { formatEvalTable } from "./config.js";
import { runEval } from "./evaluate.js";
import { HubEvalRun, uploadBatches } from "./hub-eval.js";

const listening = (server: ReturnType<typeof serve>) =>
  new Promise<string>((resolve) => {
    const done = () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    if (server.listening) done();
    else server.once("listening", done);
  });

/**
 * A stand-in hub: creates the run, issues sessions from the env, forwards gateway calls, and records
 * the uploaded receipts. The real hub's verification is tested with the hub.
 */
async function fakeHub() {
  const envs = createEnvironmentsHost();
  const bindings = await generateSecrets();
  const seen = {
    auth: [] as (string | undefined)[],
    issued: [] as number[],
    receipts: [] as string[],
    trajectories: [] as unknown[],
    gatewaySessions: 0,
    /** Session requests still to refuse with 429 (the hub's rate limit), and how many were. */
    throttle: 0,
    throttled: 0,
  };
  const app = new Hono();
  const forward = (path: string, init: RequestInit) =>
    envs.fetch(new Request(`http://env/envs/calculator${path}`, init), bindings);
  app.use(async (c, next) => {
    seen.auth.push(c.req.header("authorization"));
    await next();
  });
  // The run as the hub's API returns it (shared/evals.ts), with only what this test varies.
  const runView = (over: Partial<EvalRun>): EvalRun => ({
    id: "run_1",
    team: "acme",
    env: "calculator",
    version: "1.0.0",
    contentHash: "sha256:0",
    split: "test",
    tasks: [0, 1, 2],
    model: { name: "m" },
    public: false,
    status: "running",
    aggregate: null,
    createdAt: "2026-11-22T00:00:00Z",
    finishedAt: null,
    ...over,
  });
  app.post("/v1/evals", async (c) => {
    const body = CreateEval.parse(await c.req.json());
    expect(body.env).toBe("acme/calculator@1.0.0");
    const tasks = "indices" in body.tasks ? body.tasks.indices : [];
    return c.json(runView({ tasks, model: body.model }), 201);
  });
  app.post("/v1/evals/run_1/sessions", async (c) => {
    if (seen.throttle > 0) {
      seen.throttle--;
      seen.throttled++;
      const problem = { type: "about:blank", title: "Too Many Requests", status: 429, code: "rate_limited" };
      return c.json({ ...problem, detail: "rate limit exceeded for token caller", retryAfter: 1 }, 429, {
        "retry-after": "1",
      });
    }
    const { index } = (await c.req.json()) as { index: number };
    seen.issued.push(index);
    return forward("/v1/sessions", { method: "POST", body: JSON.stringify({ split: "test", index }) });
  });
  app.post("/v1/evals/run_1/episodes", async (c) => {
    const { episodes } = (await c.req.json()) as {
      episodes: { episodeId: string; receipt: string; trajectory?: unknown }[];
    };
    seen.receipts.push(...episodes.map((e) => e.receipt));
    seen.trajectories.push(...episodes.map((e) => e.trajectory));
    return c.json({ results: episodes.map((e) => ({ episodeId: e.episodeId, ok: true })) });
  });
  app.post("/v1/evals/run_1/finish", (c) =>
    c.json(
      runView({
        status: "finished",
        aggregate: {
          n: 3,
          verified: seen.receipts.length,
          successRate: 0,
          meanReturn: 0,
          stderr: 0,
          meanSteps: 1,
        },
        finishedAt: "2026-11-22T00:00:01Z",
      }),
    ),
  );
  app.all("/v1/envs/acme/*", async (c) => {
    const op = new URL(c.req.url).pathname.split("/calculator@1.0.0/v1/")[1];
    if (op === "sessions") seen.gatewaySessions++;
    const init: RequestInit = { method: c.req.method };
    if (c.req.method === "POST") init.body = await c.req.text();
    return forward(`/v1/${op}`, init);
  });
  return { seen, server: serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) };
}

describe("eval --upload (hub evaluation)", () => {
  let hub: Awaited<ReturnType<typeof fakeHub>>;
  let model: ReturnType<typeof serve>;
  let hubUrl = "";
  let modelUrl = "";
  beforeAll(async () => {
    hub = await fakeHub();
    model = fakeChatModel("1+1").server;
    hubUrl = await listening(hub.server);
    modelUrl = await listening(model);
  });
  afterAll(() => {
    hub.server.close();
    model.close();
  });

  const io = {
    log: () => {},
    saveCheckpoint: async () => err("unused"),
    loadCheckpoint: async () => err("unused"),
  };
  const config = {
    env: "hub://acme/calculator@1.0.0",
    model: "tiny",
    split: "test",
    n: 3,
    maxSteps: 4,
    maxNewTokens: 32,
    temperature: 0,
    seed: 1,
    concurrency: 2,
    upload: true,
  };

  it("takes every session from the hub run and uploads one receipt per episode", async () => {
    const env = { EDGEGYM_HUB_URL: hubUrl, EDGEGYM_TOKEN: "tok", XDG_CONFIG_HOME: "/nonexistent" };
    const result = await runEval({ ...config, policy: `openai:${modelUrl}/v1` }, io, env);
    if (!result.ok) throw new Error(result.error);
    expect(hub.seen.issued.sort()).toEqual([0, 1, 2]);
    expect(hub.seen.gatewaySessions).toBe(0);
    expect(hub.seen.receipts).toHaveLength(3);
    // Each receipt travels with its transcript: the session's opening turns, then every step's action.
    for (const t of hub.seen.trajectories) {
      const transcript = Transcript.parse(t);
      expect(transcript.messages.map((m) => m.role)).toEqual(["system", "user"]);
      expect(transcript.steps.length).toBeGreaterThan(0);
      expect(transcript.steps.at(-1)?.done).toBe(true);
    }
    expect(hub.seen.auth.every((a) => a === "Bearer tok")).toBe(true);
    expect(result.value.hub).toEqual({
      run: "run_1",
      accepted: 3,
      rejected: 0,
      rejections: [],
      verified: 3,
      successRate: 0,
    });
    expect(formatEvalTable(result.value)).toContain("hub run            run_1");
  });

  it("waits out a rate-limited hub instead of losing a task's receipt", async () => {
    // The first four session requests are refused with 429 (more than a step's 5 retries would allow
    // if every request were refused); every task still gets its session and its receipt.
    hub.seen.issued = [];
    hub.seen.receipts = [];
    hub.seen.trajectories = [];
    hub.seen.throttle = 4;
    hub.seen.throttled = 0;
    const env = { EDGEGYM_HUB_URL: hubUrl, EDGEGYM_TOKEN: "tok", XDG_CONFIG_HOME: "/nonexistent" };
    const result = await runEval({ ...config, policy: `openai:${modelUrl}/v1` }, io, env);
    if (!result.ok) throw new Error(result.error);
    expect(hub.seen.throttled).toBe(4);
    expect(hub.seen.issued.sort()).toEqual([0, 1, 2]);
    expect(hub.seen.receipts).toHaveLength(3);
    expect(result.value.infraFailures).toBe(0);
  });

  it("refuses --upload for an env that is not on the hub", async () => {
    const result = await runEval({ ...config, env: "local:calculator", policy: `openai:${modelUrl}/v1` }, io);
    expect(result).toMatchObject({ ok: false, error: expect.stringContaining("hub://") });
  });
});

describe("uploadBatches", () => {
  it("cuts episodes into bodies under both the count and the byte limit, in order", () => {
    // Each item is "aaaaaaaa" with its quotes: 10 bytes. A body is {"episodes":[…]}: 15 bytes, plus 10
    // for the first item and 11 (a comma) for each later one. At 40 bytes: 15 + 10 + 11 = 36 fits, a
    // third item (47) does not, so 5 items go 2, 2, 1.
    const items = ["a", "b", "c", "d", "e"].map((c) => c.repeat(8));
    expect(uploadBatches(items, 256, 40)).toEqual([items.slice(0, 2), items.slice(2, 4), items.slice(4)]);
    expect(uploadBatches(items, 256, 36)).toHaveLength(3);
    expect(uploadBatches(items, 256, 35)).toHaveLength(5);
    // The count limit alone: 2 a body.
    expect(uploadBatches(items, 2, 10_000).map((b) => b.length)).toEqual([2, 2, 1]);
    // Bytes, not characters: "é" is 2 bytes in UTF-8, so "éééé" with its quotes is 10 bytes, and
    // 15 + 10 = 25 fits 25 where the 6 characters would suggest room for two.
    expect(uploadBatches(["éééé", "éééé"], 256, 25)).toEqual([["éééé"], ["éééé"]]);
    expect(uploadBatches([], 256, 40)).toEqual([]);
  });

  it("keeps a thousand 8 KB webshop-sized episodes under the hub's 1 MiB body limit", () => {
    const episodes = Array.from({ length: 1000 }, (_, i) => ({ episodeId: `e${i}`, text: "x".repeat(8000) }));
    const batches = uploadBatches(episodes);
    expect(batches.flat()).toEqual(episodes);
    for (const b of batches)
      expect(Buffer.byteLength(JSON.stringify({ episodes: b }))).toBeLessThanOrEqual(1024 * 1024);
    // 256 of them, as batches were cut before, would be about 2 MB.
    expect(Buffer.byteLength(JSON.stringify({ episodes: episodes.slice(0, 256) }))).toBeGreaterThan(
      1024 * 1024,
    );
  });
});

describe("HubEvalRun errors", () => {
  it("reports a refusal as path: code: detail with the hub's issues", async () => {
    const app = new Hono();
    app.post("/v1/evals", (c) =>
      c.json(
        {
          type: "about:blank",
          title: "Bad Request",
          status: 400,
          code: "invalid_request",
          detail: "the request does not match the schema",
          issues: [{ path: "split", message: "Too small: expected string to have >=1 characters" }],
        },
        400,
      ),
    );
    const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
    try {
      const url = await listening(server);
      const body = { env: "acme/calculator@1.0.0", split: "", tasks: { count: 1 }, model: { name: "m" } };
      const created = await HubEvalRun.create({ url, token: "tok" }, body);
      expect(created).toEqual({
        ok: false,
        error:
          "/v1/evals: invalid_request: the request does not match the schema (split: Too small: expected string to have >=1 characters)",
      });
    } finally {
      server.close();
    }
  });
});
