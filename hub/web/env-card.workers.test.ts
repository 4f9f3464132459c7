import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { hubClient, newEnv, newTeam } from "../../tests/hub/client.js";
import { createHubApp } from "../app.js";

const hub = hubClient((r) => SELF.fetch(r));

/** The env card's MCP URL as the page shows it, fetched at `base` (whose host is the request's Host). */
async function mcpUrl(
  base: string,
  path: string,
  fetcher: (r: Request) => Response | Promise<Response> = (r) => SELF.fetch(r),
) {
  const res = await fetcher(new Request(base + path));
  expect(res.status).toBe(200);
  const text = await res.text();
  return { url: /<code class="mcp-url">([^<]*)<\/code>/.exec(text)?.[1], text };
}

describe("the env card's URLs", () => {
  it("never come from the Host header: HUB_ORIGIN, a loopback hub's own address, or paths", async () => {
    const a = await newTeam(hub);
    const { name, ref } = await newEnv(hub, a);
    const path = `/${a.team}/${name}`;
    const mcp = `/v1/envs/${ref}/mcp`;
    // A Host no one configured (a rebinding page's name, a forged header): paths only, the name nowhere.
    for (const base of ["http://evil.example", "https://hub.test"]) {
      const { url, text } = await mcpUrl(base, path);
      expect(url).toBe(mcp);
      expect(text).not.toContain(new URL(base).hostname);
    }
    // A local hub (npm run dev) on loopback, which no other site can name.
    expect((await mcpUrl("http://127.0.0.1:8787", path)).url).toBe(`http://127.0.0.1:8787${mcp}`);
    // The configured origin, whatever Host the request names.
    const app = createHubApp();
    const configured = (r: Request) => app.fetch(r, { ...env, HUB_ORIGIN: "https://hub.example.com/" });
    expect((await mcpUrl("http://evil.example", path, configured)).url).toBe(`https://hub.example.com${mcp}`);
  });
});

describe("names that readers see", () => {
  it("a model name with a bidi or other invisible control is refused; other Unicode passes", async () => {
    const a = await newTeam(hub);
    const { ref } = await newEnv(hub, a);
    const run = (name: string) =>
      hub.call("POST", "/v1/evals", {
        token: a.token,
        body: { env: ref, split: "train", tasks: { count: 1 }, model: { name } },
      });
    const controls = [
      "\u202E",
      "\u202A",
      "\u2066",
      "\u2069",
      "\u200E",
      "\u200F",
      "\u061C",
      "\u200B",
      "\uFEFF",
      "\u0000",
      "\n",
      "\u2028",
    ];
    for (const c of controls) {
      const r = await run(`gpt${c}ledom-live`);
      const cp = `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
      expect([cp, r.status, r.body.code]).toEqual([cp, 422, "invalid_request"]);
      expect(r.body.issues).toEqual([{ path: "model.name", message: expect.stringContaining(cp) }]);
    }
    expect((await run("modèle 日本語 — v2 (ünïcødé) 🙂")).status).toBe(201);
  });

  it("env and team names are slugs, so no control reaches a leaderboard through them", async () => {
    const a = await newTeam(hub);
    const env = await hub.call("POST", "/v1/envs", {
      token: a.token,
      body: { owner: a.team, name: "calc\u202Eledom", visibility: "public" },
    });
    expect([env.status, env.body.issues?.[0]?.path]).toEqual([422, "name"]);
    const team = await hub.call("POST", "/v1/teams", {
      token: "hub-test-bootstrap-secret",
      body: { name: "t\u202Ex" },
    });
    expect(team.status).toBe(422);
  });
});
