import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createHubApp } from "../../hub/app.js";
import { BOOTSTRAP, hubClient, newEnv, newTeam, newToken, uniqueName } from "./client.js";

const hub = hubClient((r) => SELF.fetch(r));

describe("teams and tokens", () => {
  it("bootstrap creates a team and a token shown once as egh_ + 32 bytes base64url, stored hashed", async () => {
    const name = uniqueName("team");
    const t = await hub.call("POST", "/v1/teams", { token: BOOTSTRAP, body: { name } });
    expect(t.status).toBe(201);
    expect(t.body.name).toBe(name);
    const k = await hub.call("POST", `/v1/teams/${name}/tokens`, {
      token: BOOTSTRAP,
      body: { scopes: ["read"] },
    });
    expect(k.status).toBe(201);
    // 32 bytes → ceil(32 * 4 / 3) = 43 base64url characters without padding.
    expect(k.body.token).toMatch(/^egh_[A-Za-z0-9_-]{43}$/);
    const row = await env.DB.prepare("select hash from hub_tokens where id = ?")
      .bind(k.body.id)
      .first<{ hash: string }>();
    expect(row?.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row?.hash).not.toContain(k.body.token.slice(4));
  });

  it("refuses duplicate teams, bad names and unknown teams", async () => {
    const { team } = await newTeam(hub);
    expect((await hub.call("POST", "/v1/teams", { token: BOOTSTRAP, body: { name: team } })).body.code).toBe(
      "conflict",
    );
    const bad = await hub.call("POST", "/v1/teams", { token: BOOTSTRAP, body: { name: "Bad_Name" } });
    expect(bad.status).toBe(422);
    expect(bad.headers.get("content-type")).toBe("application/problem+json");
    expect(bad.body.issues[0].path).toBe("name");
    const missing = await hub.call("POST", "/v1/teams/no-such-team/tokens", {
      token: BOOTSTRAP,
      body: { scopes: ["read"] },
    });
    expect(missing.status).toBe(404);
    const garbled = await hub.call("POST", "/v1/teams", { token: BOOTSTRAP, body: "{not json" });
    expect(garbled.status).toBe(400);
    expect(garbled.body.code).toBe("invalid_json");
    const past = await hub.call("POST", `/v1/teams/${team}/tokens`, {
      token: BOOTSTRAP,
      body: { scopes: ["read"], expiresAt: "2000-01-01T00:00:00Z" },
    });
    expect(past.status).toBe(422);
  });

  it("an admin token creates teams and its own team's tokens, not other teams' tokens", async () => {
    const a = await newTeam(hub, ["admin"]);
    const b = await newTeam(hub, ["admin"]);
    const name = uniqueName("team");
    expect((await hub.call("POST", "/v1/teams", { token: a.token, body: { name } })).status).toBe(201);
    const own = await hub.call("POST", `/v1/teams/${a.team}/tokens`, {
      token: a.token,
      body: { scopes: ["read"] },
    });
    expect(own.status).toBe(201);
    const other = await hub.call("POST", `/v1/teams/${b.team}/tokens`, {
      token: a.token,
      body: { scopes: ["read"] },
    });
    expect(other.status).toBe(403);
  });

  it("revoking: the team's admin or the token itself; another team gets 404; a revoked token is 401", async () => {
    const a = await newTeam(hub, ["admin"]);
    const b = await newTeam(hub, ["admin"]);
    const victim = await newToken(hub, a.team, ["read"]);
    // Used once first, so the hub has it cached: revocation must still take effect at once.
    expect((await hub.call("GET", "/v1/envs", { token: victim.token })).status).toBe(200);
    expect((await hub.call("DELETE", `/v1/tokens/${victim.tokenId}`, { token: b.token })).status).toBe(404);
    expect((await hub.call("DELETE", `/v1/tokens/${victim.tokenId}`, { token: a.token })).status).toBe(204);
    const used = await hub.call("GET", "/v1/envs", { token: victim.token });
    expect(used.status).toBe(401);
    expect(used.body.detail).toMatch(/revoked/);
    const self = await newToken(hub, a.team, ["read"]);
    expect((await hub.call("DELETE", `/v1/tokens/${self.tokenId}`, { token: self.token })).status).toBe(204);
    expect((await hub.call("DELETE", "/v1/tokens/tok_nope", { token: a.token })).status).toBe(404);
    expect((await hub.call("DELETE", `/v1/tokens/${self.tokenId}`)).status).toBe(401);
  });

  it("records last use, and an expired token is refused", async () => {
    const { team } = await newTeam(hub, ["admin"]);
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const t = await newToken(hub, team, ["read"], { expiresAt });
    expect((await hub.call("GET", "/v1/envs", { token: t.token })).status).toBe(200);
    const row = await env.DB.prepare("select last_used_at as t from hub_tokens where id = ?")
      .bind(t.tokenId)
      .first<{ t: number }>();
    expect(row?.t).toBeGreaterThan(Date.now() - 60_000);
    // The same hub two hours later: the token's hour is over.
    const later = createHubApp({ now: () => Date.now() + 7_200_000 });
    const late = hubClient(async (r) => later.fetch(r, env));
    const r = await late.call("GET", "/v1/envs", { token: t.token });
    expect(r.status).toBe(401);
    expect(r.body.detail).toMatch(/expired/);
  });

  it("rejects malformed and unknown bearer tokens with 401 problems", async () => {
    const basic = (userPass: string) => `Basic ${btoa(userPass)}`;
    for (const header of [
      "Basic abc",
      "Basic !!",
      basic("user-without-password"),
      basic("x:"),
      basic("x:egh_unknown"),
      "Bearer",
      "Bearer egh_unknown",
      "Bearer not-a-hub-token",
    ]) {
      const res = await SELF.fetch("http://hub.test/v1/envs", { headers: { authorization: header } });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { code: string }).code).toBe("unauthorized");
    }
  });
});

describe("Basic auth", () => {
  it("a Basic header's password is the token (clients that take only a URL, `ws://x:<token>@hub/…`)", async () => {
    const a = await newTeam(hub);
    const name = uniqueName("private");
    const created = await hub.call("POST", "/v1/envs", {
      token: a.token,
      body: { owner: a.team, name, visibility: "private" },
    });
    expect(created.status).toBe(201);
    const pub = await hub.call("POST", `/v1/envs/${a.team}/${name}/versions`, {
      token: a.token,
      body: { version: "1.0.0", builtin: "calculator" },
    });
    expect(pub.status).toBe(201);
    const url = `http://hub.test/v1/envs/${a.team}/${name}@1.0.0/v1/manifest`;
    expect((await SELF.fetch(url)).status).toBe(404);
    for (const user of ["x", "", "token"]) {
      const res = await SELF.fetch(url, {
        headers: { authorization: `Basic ${btoa(`${user}:${a.token}`)}` },
      });
      expect(res.status, user).toBe(200);
    }
  });
});

describe("auth matrix", () => {
  it("each route demands its scope; wrong team and anonymous callers are refused", async () => {
    const owner = await newTeam(hub);
    const stranger = await newTeam(hub);
    const { name } = await newEnv(hub, owner, { visibility: "private" });
    const scoped = Object.fromEntries(
      await Promise.all(
        (["read", "publish", "eval", "admin"] as const).map(async (s) => [
          s,
          (await newToken(hub, owner.team, [s])).token,
        ]),
      ),
    ) as Record<"read" | "publish" | "eval" | "admin", string>;
    const envPath = `/v1/envs/${owner.team}/${name}`;
    // route, body, the scopes that may call it (admin implies all).
    const routes: [string, string, unknown, string[]][] = [
      ["GET", envPath, undefined, ["read", "admin"]],
      ["GET", `/v1/envs?owner=${owner.team}`, undefined, ["read", "admin"]],
      ["POST", `${envPath}/versions`, { version: "9.0.0", builtin: "calculator" }, ["publish", "admin"]],
      ["GET", `${envPath}/versions/latest`, undefined, ["read", "admin"]],
      ["GET", `${envPath}@1.0.0/v1/manifest`, undefined, ["read", "admin"]],
      [
        "POST",
        "/v1/evals",
        { env: `${owner.team}/${name}@1.0.0`, split: "train", tasks: { count: 1 }, model: { name: "m" } },
        ["eval", "admin"],
      ],
      ["GET", `${envPath}/leaderboard?split=train`, undefined, ["read", "admin"]],
      // Last, since it changes what the routes above resolve; yanking twice is allowed.
      ["POST", `${envPath}/versions/1.0.0/yank`, undefined, ["publish", "admin"]],
    ];
    for (const [method, path, body, allowed] of routes) {
      const anon = await hub.call(method, path, { body });
      const foreign = await hub.call(method, path, { token: stranger.token, body });
      if (path.startsWith("/v1/envs?")) {
        // Listing is open to all, but the private env is in nobody else's list.
        for (const r of [anon, foreign])
          expect(r.body.envs.map((e: { name: string }) => e.name)).not.toContain(name);
      } else {
        expect([401, 404], `${method} ${path} anonymous`).toContain(anon.status);
        expect([403, 404], `${method} ${path} stranger`).toContain(foreign.status);
      }
      for (const [scope, token] of Object.entries(scoped)) {
        const r = await hub.call(method, path, { token, body });
        if (allowed.includes(scope)) expect(r.status, `${method} ${path} ${scope}`).toBeLessThan(300);
        else expect(r.status, `${method} ${path} ${scope}`).toBe(403);
        // Versions are immutable: the next scope publishes a fresh one.
        if (r.status < 300 && path.endsWith("/versions"))
          (body as { version: string }).version = `9.0.${Math.floor(Math.random() * 1e6)}`;
      }
    }
  });

  it("bootstrap can't act as a team", async () => {
    const r = await hub.call("POST", "/v1/envs", {
      token: BOOTSTRAP,
      body: { owner: "x", name: "y", visibility: "public" },
    });
    expect(r.status).toBe(403);
  });
});

describe("auth matrix: sharing and evaluation routes", () => {
  it("shares need publish on the owner team; run writes need eval; run reads need read", async () => {
    const owner = await newTeam(hub);
    const other = await newTeam(hub);
    const { name, ref } = await newEnv(hub, owner, { visibility: "private" });
    const tokens = Object.fromEntries(
      await Promise.all(
        (["read", "publish", "eval", "admin"] as const).map(async (s) => [
          s,
          (await newToken(hub, owner.team, [s])).token,
        ]),
      ),
    ) as Record<"read" | "publish" | "eval" | "admin", string>;
    const run = await hub.call("POST", "/v1/evals", {
      token: tokens.eval,
      body: { env: ref, split: "train", tasks: { count: 2 }, model: { name: "m" } },
    });
    expect(run.status).toBe(201);
    const id = run.body.id as string;
    const shares = `/v1/envs/${owner.team}/${name}/shares`;
    const cases: [string, string, unknown, string[]][] = [
      ["POST", shares, { team: other.team, role: "read" }, ["publish", "admin"]],
      ["DELETE", `${shares}/${other.team}`, undefined, ["publish"]],
      ["POST", `/v1/evals/${id}/sessions`, { index: 0 }, ["eval", "admin"]],
      [
        "POST",
        `/v1/evals/${id}/episodes`,
        { episodes: [{ episodeId: "e", receipt: "r" }] },
        ["eval", "admin"],
      ],
      ["GET", `/v1/evals/${id}`, undefined, ["read", "admin"]],
      ["GET", `/v1/evals?env=${owner.team}/${name}`, undefined, ["read", "admin"]],
      ["POST", `/v1/evals/${id}/finish`, undefined, ["eval", "admin"]],
    ];
    for (const [method, path, body, allowed] of cases) {
      expect((await hub.call(method, path, { body })).status, `${method} ${path} anonymous`).toBe(
        method === "GET" ? 404 : 401,
      );
      for (const [scope, token] of Object.entries(tokens)) {
        const r = await hub.call(method, path, { token, body });
        if (allowed.includes(scope)) expect(r.status, `${method} ${path} ${scope}`).toBeLessThan(300);
        else if (!(method === "DELETE" && scope === "admin"))
          expect(r.status, `${method} ${path} ${scope}`).toBe(403);
      }
    }
    // The other team: the env, its shares and the run are all invisible.
    for (const [method, path, body] of cases) {
      expect(
        (await hub.call(method, path, { token: other.token, body })).status,
        `${method} ${path} other team`,
      ).toBe(404);
    }
  });
});
