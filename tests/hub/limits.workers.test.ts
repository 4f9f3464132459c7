import { env, SELF } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createHubApp } from "../../hub/app.js";
import { hubClient, newEnv, newTeam, newToken } from "./client.js";

/** The hub's rate limit across a window boundary, 415 for non-JSON bodies, and user-given keys. */
const hub = hubClient((r) => SELF.fetch(r));

describe("rate limit", () => {
  it("admits at most the limit in any span of the period, also across a fixed window's boundary", async () => {
    const a = await newTeam(hub);
    const { token } = await newToken(hub, a.team, ["read"]);
    const { name } = await newEnv(hub, a);
    // The hub's own limit only (no binding): 5 requests per 10 s, on a clock the test moves.
    const t0 = 1_000_000; // a multiple of 10 s: a fixed window would restart at t0 + 10 s
    let clock = t0;
    const app = createHubApp({ now: () => clock });
    const limited = hubClient(async (r) =>
      app.fetch(r, {
        ...env,
        HUB_RATE_LIMIT: undefined,
        HUB_RATE_LIMIT_REQUESTS: "5",
        HUB_RATE_LIMIT_PERIOD: "10",
      }),
    );
    const burst = async (at: number, n: number) => {
      clock = t0 + at;
      const out: { status: number; retryAfter: string | null }[] = [];
      for (let i = 0; i < n; i++) {
        const r = await limited.call("GET", "/v1/envs?limit=1", { token });
        out.push({ status: r.status, retryAfter: r.headers.get("retry-after") });
      }
      return out;
    };
    // 5 just before the boundary: all admitted.
    expect((await burst(9_900, 5)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    // 5 just after it: a fixed window would admit all 5 (10 in 200 ms); the sliding window none.
    // They wait until the 500 ms bucket holding t0+9.9 s (t0+9.5 s..t0+10 s) leaves the counted span
    // of 20 buckets + the current one, at t0 + 20 s: Retry-After = ceil((20_000 - 10_100) / 1000) = 10.
    const after = await burst(10_100, 5);
    expect(after.map((r) => r.status)).toEqual([429, 429, 429, 429, 429]);
    expect(after[0]?.retryAfter).toBe("10");
    // The gateway counts against the same budget.
    clock = t0 + 15_000;
    const gw = await limited.call("GET", `/v1/envs/${a.team}/${name}@1.0.0/v1/manifest`, { token });
    expect(gw.status).toBe(429);
    expect(gw.body.code).toBe("rate_limited");
    expect((await burst(19_999, 1))[0]?.status).toBe(429);
    expect((await burst(20_000, 5)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    // Other callers have their own budget.
    const other = await newToken(hub, a.team, ["read"]);
    expect((await limited.call("GET", "/v1/envs?limit=1", { token: other.token })).status).toBe(200);
  });
});

describe("415 for bodies that are not JSON", () => {
  const post = (path: string, token: string, body: BodyInit, type?: string) =>
    SELF.fetch(`http://hub.test${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, ...(type ? { "content-type": type } : {}) },
      body,
    });

  it("answers 415 unsupported_media_type, and accepts application/json with a charset", async () => {
    const a = await newTeam(hub);
    const json = (name: string) => JSON.stringify({ owner: a.team, name, visibility: "public" });
    const types = ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"];
    for (const type of types) {
      const r = await post("/v1/envs", a.token, json(`t-${types.indexOf(type)}`), type);
      expect(r.status, type).toBe(415);
      expect(r.headers.get("content-type")).toBe("application/problem+json");
      expect(((await r.json()) as { code: string }).code).toBe("unsupported_media_type");
    }
    // No content-type at all (a byte body gets none).
    const none = await post("/v1/envs", a.token, new TextEncoder().encode(json("t-none")));
    expect(none.status).toBe(415);
    // The eval step route reads its body itself: the same rule.
    const step = await post("/v1/evals/nope/step", a.token, '{"session":"s","action":{}}', "text/plain");
    expect(step.status).toBe(415);
    expect(((await step.json()) as { code: string }).code).toBe("unsupported_media_type");
    for (const type of ["application/json; charset=utf-8", "Application/JSON"]) {
      const r = await post("/v1/envs", a.token, json(`ok-${type.length}`), type);
      expect(r.status, type).toBe(201);
    }
  });
});

describe("user-given keys in hub routes", () => {
  const protoKeys = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"];

  it("a split named after an Object.prototype key is unknown_split, not a run", async () => {
    const a = await newTeam(hub);
    const { ref } = await newEnv(hub, a);
    for (const split of protoKeys) {
      const r = await hub.call("POST", "/v1/evals", {
        token: a.token,
        body: { env: ref, split, tasks: { count: 1 }, model: { name: "m" } },
      });
      expect(r.status, split).toBe(404);
      expect(r.body.code).toBe("unknown_split");
    }
  });

  it("any string as split, env name, version or gateway op never gives a 5xx", async () => {
    const a = await newTeam(hub);
    const { name, ref } = await newEnv(hub, a);
    const text = fc.oneof(fc.constantFrom(...protoKeys), fc.string({ minLength: 1, maxLength: 40 }));
    await fc.assert(
      fc.asyncProperty(text, text, async (s, t) => {
        const seg = encodeURIComponent;
        const split = await hub.call("POST", "/v1/evals", {
          token: a.token,
          body: { env: ref, split: s, tasks: { count: 1 }, model: { name: "m" } },
        });
        expect(split.status === 201 || split.status === 404 || split.status === 422, s).toBe(true);
        const paths = [
          `/v1/envs/${a.team}/${name}@latest/v1/${seg(s)}`,
          `/v1/envs/${a.team}/${seg(s)}@${seg(t)}/v1/manifest`,
          `/v1/envs/${seg(s)}/${seg(t)}`,
          `/v1/envs/${a.team}/${name}/versions/${seg(s)}`,
          `/v1/envs/${a.team}/${name}/leaderboard?split=${seg(s)}&version=${seg(t)}`,
        ];
        for (const path of paths) {
          const r = await hub.call("GET", path, { token: a.token });
          expect(r.status, path).toBeLessThan(500);
        }
      }),
      { numRuns: 40 },
    );
  });
});
