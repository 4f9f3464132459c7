import { env, SELF } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { hubEnvs, hubVersions } from "../../shared/db/schema.js";
import type { HostedInfo } from "../../shared/hosted.js";
import { hubClient, newEnv, newTeam } from "../../tests/hub/client.js";
import { createHubApp } from "../app.js";
import { hubDb } from "../db.js";
import { putBundle } from "../hosted/store.js";

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

describe("a hosted version on the card", () => {
  it("shows that it is hosted, its bundle's hash, size and modules, and its source only escaped", async () => {
    const a = await newTeam(hub);
    const { name } = await newEnv(hub, a);
    const db = hubDb(env);
    const owner = await db.select().from(hubEnvs).where(eq(hubEnvs.name, name));
    const builtin = await db
      .select()
      .from(hubVersions)
      .where(eq(hubVersions.envId, owner[0]?.id ?? -1));
    const row = builtin[0];
    if (!row) throw new Error("the env has no version");
    // A pushed bundle's source is its publisher's text: markup in it must reach readers as text.
    const hostile =
      'const s = "</pre><script>alert(1)</script>";\nexport default { fetch: () => new Response(s) };\n';
    const source = {
      mainModule: "worker.js",
      modules: [
        { name: "worker.js", type: "esm" as const, content: hostile },
        { name: "notes.txt", type: "text" as const, content: "<img src=x onerror=alert(2)>" },
        { name: "blob.bin", type: "data" as const, content: Buffer.from("BINARY-MARKER").toString("base64") },
      ],
    };
    const bundleHash = `sha256:${"ab".repeat(32)}`;
    const hosted: HostedInfo = {
      bundleHash,
      bytes: 2_500_000,
      mainModule: "worker.js",
      modules: [
        { name: "worker.js", type: "esm", bytes: 2_499_960 },
        { name: "notes.txt", type: "text", bytes: 27 },
        { name: "blob.bin", type: "data", bytes: 13 },
      ],
      outbound: [],
    };
    await db.insert(hubVersions).values({ ...row, version: "2.0.0", builtin: null, bundleHash, hosted });
    await putBundle(env, bundleHash, source, { ...source, outbound: [] });

    const card = await (await SELF.fetch(`http://hub.test/${a.team}/${name}?version=2.0.0`)).text();
    expect(card).toContain('<span class="badge ok">hosted</span>');
    expect(card).toContain(`<code>${bundleHash}</code>`);
    expect(card).toContain("2.4 MiB in 3 modules");
    expect(card).toMatch(/<td><code>notes\.txt<\/code><\/td><td>text<\/td><td class="num">27 B<\/td>/);
    expect(card).toContain("outbound hosts</dt><dd>none");
    // The source waits until asked: a bundle may be megabytes.
    expect(card).toContain(`href="/${a.team}/${name}?version=2.0.0&amp;source=1#source"`);
    expect(card).not.toContain("alert(");

    const shown = await (await SELF.fetch(`http://hub.test/${a.team}/${name}?version=2.0.0&source=1`)).text();
    expect(shown).toContain(
      '<pre class="source">const s = &quot;&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;;',
    );
    expect(shown).toContain('<pre class="source">&lt;img src=x onerror=alert(2)&gt;</pre>');
    expect(shown).not.toMatch(/<script>alert|<img src=x/);
    expect(shown).toContain("<code>blob.bin</code> · binary, 13 B, not shown");
    expect(shown).not.toContain(Buffer.from("BINARY-MARKER").toString("base64"));
    // The built-in version beside it is served from its built-in, and shows no hosted section.
    const v1 = await (await SELF.fetch(`http://hub.test/${a.team}/${name}?version=1.0.0`)).text();
    expect(v1).toContain("<td>built-in</td>");
    expect(v1).not.toContain("Hosted code");
  });
});
