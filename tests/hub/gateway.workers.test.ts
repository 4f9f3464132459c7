import { applyD1Migrations, env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createHubApp } from "../../hub/app.js";
import { hubClient, newEnv, newTeam, newToken, playEpisode } from "./client.js";

const hub = hubClient((r) => SELF.fetch(r));

describe("gateway", () => {
  it("forwards manifest, sessions, step, step:batch and expert to a built-in, with a request id", async () => {
    const a = await newTeam(hub);
    const { name } = await newEnv(hub, a);
    const base = `/v1/envs/${a.team}/${name}@latest`;
    const m = await hub.call("GET", `${base}/v1/manifest`);
    const direct = await SELF.fetch("http://hub.test/envs/calculator/v1/manifest").then((r) => r.json());
    expect(m.status).toBe(200);
    expect(m.body).toEqual(direct);
    expect(m.headers.get("x-request-id")).toBeTruthy();
    expect(m.headers.get("x-edgegym-version")).toBe("1.0.0");
    const s = await hub.call("POST", `${base}/v1/sessions`, { body: { split: "train", index: 3 } });
    expect(s.status).toBe(201);
    expect(s.body.task).toEqual({ split: "train", index: 3 });
    const batch = await hub.call("POST", `${base}/v1/step:batch`, {
      body: {
        steps: [
          { session: s.body.session, action: { content: "#### 1" } },
          { session: "garbage", action: { content: "x" } },
        ],
      },
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(200);
    expect(batch.body.results[0].done).toBe(true);
    expect(batch.body.results[1].error.code).toBe("invalid_session");
    const solved = await playEpisode(hub, undefined, base, s.body.session, true);
    expect(solved.reward).toBeGreaterThan(0);
    expect(solved.receipt.split(".")).toHaveLength(3);
  });

  it("passes the env's problems through unchanged", async () => {
    const a = await newTeam(hub);
    const { name } = await newEnv(hub, a);
    const base = `/v1/envs/${a.team}/${name}@1.0.0`;
    const viaHub = await hub.call("POST", `${base}/v1/step`, {
      body: { session: "forged", action: { content: "hi" } },
    });
    const direct = await hub.call("POST", "/envs/calculator/v1/step", {
      body: { session: "forged", action: { content: "hi" } },
    });
    expect(viaHub.status).toBe(401);
    expect(viaHub.headers.get("content-type")).toBe("application/problem+json");
    expect(viaHub.body).toEqual(direct.body);
    const s = await hub.call("POST", `${base}/v1/sessions`, { body: { split: "test", index: 0 } });
    const expert = await hub.call("POST", `${base}/v1/expert`, { body: { session: s.body.session } });
    expect(expert.status).toBe(403);
    expect(expert.body.code).toBe("expert_forbidden");
    expect((await hub.call("POST", `${base}/v1/sessions`, { body: { split: "nope" } })).body.code).toBe(
      "unknown_split",
    );
  });

  it("404s for unknown versions and ops, and for private envs the caller can't read", async () => {
    const a = await newTeam(hub);
    const b = await newTeam(hub);
    const { name } = await newEnv(hub, a, { visibility: "private" });
    expect(
      (await hub.call("GET", `/v1/envs/${a.team}/${name}@1.0.0/v1/manifest`, { token: a.token })).status,
    ).toBe(200);
    for (const token of [undefined, b.token]) {
      const r = await hub.call("GET", `/v1/envs/${a.team}/${name}@1.0.0/v1/manifest`, { token });
      expect(r.status).toBe(404);
      expect(r.body.detail).toBe(`no environment ${a.team}/${name}`);
    }
    expect(
      (await hub.call("GET", `/v1/envs/${a.team}/${name}@9.9.9/v1/manifest`, { token: a.token })).status,
    ).toBe(404);
    expect(
      (await hub.call("GET", `/v1/envs/${a.team}/${name}@1.0.0/v1/step`, { token: a.token })).status,
    ).toBe(404);
    expect(
      (await hub.call("POST", `/v1/envs/${a.team}/${name}@1.0.0/v1/admin`, { token: a.token })).status,
    ).toBe(404);
    // Shared with b: readable through the gateway until the share is revoked.
    const gw = (team: { token: string }, ref: string) =>
      hub.call("GET", `/v1/envs/${a.team}/${name}@${ref}/v1/manifest`, { token: team.token });
    await hub.call("POST", `/v1/envs/${a.team}/${name}/shares`, {
      token: a.token,
      body: { team: b.team, role: "read" },
    });
    expect((await gw(b, "latest")).status).toBe(200);
    await hub.call("DELETE", `/v1/envs/${a.team}/${name}/shares/${b.team}`, { token: a.token });
    expect((await gw(b, "latest")).status).toBe(404);
    // A yanked version leaves @latest but stays reachable by its exact version.
    await hub.call("POST", `/v1/envs/${a.team}/${name}/versions/1.0.0/yank`, { token: a.token });
    expect((await gw(a, "latest")).status).toBe(404);
    expect((await gw(a, "1.0.0")).status).toBe(200);
  });

  it("rate-limits each token: 429 problem with Retry-After", async () => {
    const a = await newTeam(hub);
    const { name } = await newEnv(hub, a);
    // The hub with the tight test limiter: 5 requests per 10 s per token (vitest.config.ts).
    const app = createHubApp();
    const tight = hubClient(async (r) =>
      app.fetch(r, { ...env, HUB_RATE_LIMIT: env.HUB_TIGHT_LIMIT, HUB_RATE_LIMIT_PERIOD: "10" }),
    );
    // The binding counts in fixed 10 s windows on the wall clock, as Cloudflare's does, so a burst
    // that straddles a window's edge starts a fresh count there. Such a burst is played again, with
    // a fresh token, until one falls inside a single window; the assertions are on that one.
    const windowOf = () => Math.floor(Date.now() / 10_000);
    const burst = async () => {
      const { token } = await newToken(hub, a.team, ["read"]);
      const first = windowOf();
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await tight.call("GET", "/v1/envs?limit=1", { token })).status);
      const limited = await tight.call("GET", "/v1/envs?limit=1", { token });
      // The gateway counts against the same budget.
      const viaGateway = await tight.call("GET", `/v1/envs/${a.team}/${name}@1.0.0/v1/manifest`, { token });
      return { statuses, limited, viaGateway, oneWindow: windowOf() === first };
    };
    let played = await burst();
    for (let attempt = 1; !played.oneWindow && attempt < 3; attempt++) played = await burst();
    expect(played.oneWindow).toBe(true);
    const { statuses, limited, viaGateway } = played;
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    expect(limited.headers.get("retry-after")).toBe("10");
    expect(viaGateway.status).toBe(429);
    expect(viaGateway.headers.get("retry-after")).toBe("10");
    // Another token of the same team is unaffected.
    const other = await newToken(hub, a.team, ["read"]);
    expect((await tight.call("GET", "/v1/envs?limit=1", { token: other.token })).status).toBe(200);
  });
});

describe("rate limit off", () => {
  it("with HUB_RATE_LIMIT_REQUESTS=0 neither the hub's window nor the binding limits a token", async () => {
    const a = await newTeam(hub);
    const { token } = await newToken(hub, a.team, ["read"]);
    // The tight test binding admits 5 requests per 10 s per token; 8 pass with the limit off.
    const app = createHubApp();
    const open = hubClient(async (r) =>
      app.fetch(r, { ...env, HUB_RATE_LIMIT: env.HUB_TIGHT_LIMIT, HUB_RATE_LIMIT_REQUESTS: "0" }),
    );
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await open.call("GET", "/v1/envs?limit=1", { token })).status);
    expect(statuses).toEqual(Array(8).fill(200));
  });
});

describe("API description and database", () => {
  it("serves an OpenAPI 3.1 document covering the stable routes, and a reference page", async () => {
    const doc = await hub.call("GET", "/v1/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe("3.1.0");
    const paths = Object.keys(doc.body.paths);
    for (const p of [
      "/v1/teams",
      "/v1/teams/{team}/tokens",
      "/v1/tokens/{id}",
      "/v1/envs",
      "/v1/envs/{owner}/{name}",
      "/v1/envs/{owner}/{name}/versions",
      "/v1/envs/{owner}/{name}/versions/{version}/yank",
      "/v1/envs/{owner}/{name}/shares",
      "/v1/envs/{owner}/{name}/shares/{team}",
      "/v1/evals",
      "/v1/evals/{id}/episodes",
      "/v1/evals/{id}/step",
      "/v1/envs/{owner}/{name}/leaderboard",
      "/v1/envs/{owner}/{ref}/v1/{op}",
    ]) {
      expect(paths).toContain(p);
    }
    const page = await SELF.fetch("http://hub.test/v1/reference");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(await page.text()).toContain("/v1/openapi.json");
  });

  it("unknown routes and oversized bodies are problems", async () => {
    const r = await hub.call("GET", "/v1/nothing-here");
    expect(r.status).toBe(404);
    expect(r.body.requestId).toBe(r.headers.get("x-request-id"));
    const a = await newTeam(hub);
    const big = await hub.call("POST", "/v1/envs", {
      token: a.token,
      body: { readme: "x".repeat(1_100_000) },
    });
    expect(big.status).toBe(413);
    expect(big.body.code).toBe("body_too_large");
  });

  it("migrations apply to an empty database, FTS5 triggers included", async () => {
    await applyD1Migrations(env.HUB_EMPTY_DB, env.TEST_MIGRATIONS);
    const db = env.HUB_EMPTY_DB;
    await db.prepare("insert into hub_teams (name, created_at) values ('t', 0)").run();
    await db
      .prepare(
        "insert into hub_envs (owner, name, visibility, description, tags, readme, created_at, updated_at) values ('t', 'calc', 'public', 'adds numbers', 'math', '', 0, 0)",
      )
      .run();
    await db.prepare("update hub_envs set description = 'multiplies numbers' where name = 'calc'").run();
    const hit = await db
      .prepare("select rowid from hub_envs_fts where hub_envs_fts match 'multiplies'")
      .all();
    const stale = await db.prepare("select rowid from hub_envs_fts where hub_envs_fts match 'adds'").all();
    expect(hit.results).toHaveLength(1);
    expect(stale.results).toHaveLength(0);
  });
});
