import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createHubApp } from "../../hub/app.js";
import { hubClient, newEnv, newTeam, uniqueName } from "./client.js";

/**
 * The hub's fetches to user-given endpoints: deadlines against a real server that never
 * answers (tests/hub/stall-server.ts, a Node server on 127.0.0.1 that workerd reaches over TCP), the
 * hop header that ends forwarding loops, and the refusal of private and loopback addresses.
 */
const hub = hubClient((r) => SELF.fetch(r));
const stall = env.HUB_TEST_STALL_URL;

type Manifest = { contentHash: string; publicKey: unknown; limits: { stepTimeoutMs: number } };
const calculatorManifest = async () =>
  (await SELF.fetch("http://hub.test/envs/calculator/v1/manifest").then((r) => r.json())) as Manifest;

/** An env with no versions yet, owned by a new team. */
async function emptyEnv(visibility: "public" | "private" = "public") {
  const team = await newTeam(hub);
  const name = uniqueName("env");
  const r = await hub.call("POST", "/v1/envs", {
    token: team.token,
    body: { owner: team.team, name, visibility },
  });
  expect(r.status).toBe(201);
  return { ...team, name };
}

/** A version row written straight to D1, as a hub from before these checks could have stored it. */
async function storeVersion(owner: string, name: string, version: string, endpoint: string) {
  const m = await calculatorManifest();
  const row = await env.DB.prepare("select id from hub_envs where owner = ? and name = ?")
    .bind(owner, name)
    .first<{ id: number }>();
  await env.DB.prepare(
    "insert into hub_versions (env_id, version, prerelease, endpoint, builtin, manifest, public_key, content_hash, yanked_at, created_at) values (?, ?, 0, ?, null, ?, ?, ?, null, ?)",
  )
    .bind(
      row?.id,
      version,
      endpoint,
      JSON.stringify(m),
      JSON.stringify(m.publicKey),
      m.contentHash,
      Date.now(),
    )
    .run();
}

describe("upstream deadlines", () => {
  // The hub as deployed but with short deadlines: 200 ms for a manifest, stepTimeoutMs + 100 ms per call.
  const app = createHubApp();
  const quick = hubClient(async (r) =>
    app.fetch(r, { ...env, HUB_MANIFEST_TIMEOUT_MS: "200", HUB_UPSTREAM_MARGIN_MS: "100" }),
  );

  it("publish: an endpoint that never answers, or stops mid-body, is 504 upstream_timeout", async () => {
    const a = await emptyEnv();
    const path = `/v1/envs/${a.team}/${a.name}/versions`;
    for (const endpoint of [`${stall}/hang`, `${stall}/slow-body`]) {
      const r = await quick.call("POST", path, { token: a.token, body: { version: "1.0.0", endpoint } });
      expect(r.status, endpoint).toBe(504);
      expect(r.headers.get("content-type")).toBe("application/problem+json");
      expect(r.body.code).toBe("upstream_timeout");
    }
    expect((await hub.call("GET", `/v1/envs/${a.team}/${a.name}`)).body.versions).toEqual([]);
  });

  it("gateway: each call to an env that stops answering is 504 after its stepTimeoutMs + margin", async () => {
    const a = await emptyEnv();
    // The stall server answers this manifest (stepTimeoutMs 50) and never answers sessions or steps.
    const key = uniqueName("m");
    const manifest = { ...(await calculatorManifest()) };
    manifest.limits = { ...manifest.limits, stepTimeoutMs: 50 };
    await fetch(`${stall}/manifest/${key}`, { method: "PUT", body: JSON.stringify(manifest) });
    const pub = await quick.call("POST", `/v1/envs/${a.team}/${a.name}/versions`, {
      token: a.token,
      body: { version: "1.0.0", endpoint: `${stall}/half/${key}` },
    });
    expect(pub.status, JSON.stringify(pub.body)).toBe(201);
    const base = `/v1/envs/${a.team}/${a.name}@1.0.0/v1`;
    const calls: [string, unknown][] = [
      ["sessions", { split: "train", index: 0 }],
      ["step", { session: "s", action: { content: "#### 1" } }],
      ["step:batch", { steps: [] }],
      ["expert", { session: "s" }],
    ];
    for (const [op, body] of calls) {
      const r = await quick.call("POST", `${base}/${op}`, { body });
      expect(r.status, op).toBe(504);
      expect(r.body.code).toBe("upstream_timeout");
      // 50 ms from the manifest + the 100 ms margin.
      expect(r.body.detail).toBe("the environment did not answer within 150 ms");
      expect(r.body.detail).not.toContain("127.0.0.1");
    }
  });
});

describe("forwarding loops", () => {
  /** The hub whose outbound fetches to `hub.test` or `alias.test` reach itself; counts them, cut at 5. */
  function loopingHub() {
    const seen = { nested: 0 };
    const app = createHubApp({
      fetch: async (r) => {
        seen.nested++;
        if (seen.nested > 5) return new Response("cut by the test", { status: 500 });
        return app.fetch(r, env);
      },
    });
    return { seen, client: hubClient(async (r) => app.fetch(r, env)) };
  }

  it("the issue's @latest loop: refused at publish (own origin, or any hub's gateway), 508 at the gateway", async () => {
    const a = await emptyEnv();
    const { seen, client } = loopingHub();
    const path = `/v1/envs/${a.team}/${a.name}/versions`;
    const v1 = await client.call("POST", path, {
      token: a.token,
      body: { version: "1.0.0", builtin: "calculator" },
    });
    expect(v1.status).toBe(201);
    // 1. The hub's own origin is refused before anything is fetched.
    const self = await client.call("POST", path, {
      token: a.token,
      body: { version: "2.0.0", endpoint: `http://hub.test/v1/envs/${a.team}/${a.name}@latest` },
    });
    expect(self.status).toBe(422);
    expect(self.body.issues).toEqual([
      { path: "endpoint", message: expect.stringMatching(/this hub itself/) },
    ]);
    expect(seen.nested).toBe(0);
    // 2. The same hub under another name: its manifest fetch carries the hop header, one hop, 508.
    const alias = await client.call("POST", path, {
      token: a.token,
      body: { version: "2.0.0", endpoint: `http://alias.test/v1/envs/${a.team}/${a.name}@latest` },
    });
    expect(alias.status).toBe(508);
    expect(alias.body.code).toBe("loop_detected");
    expect(seen.nested).toBe(1);
    // 3. A loop stored before these checks: @latest is 2.0.0, which points at @latest.
    await storeVersion(a.team, a.name, "2.0.0", `http://hub.test/v1/envs/${a.team}/${a.name}@latest`);
    seen.nested = 0;
    const gw = await client.call("GET", `/v1/envs/${a.team}/${a.name}@latest/v1/manifest`);
    expect(gw.status).toBe(508);
    expect(gw.body.code).toBe("loop_detected");
    expect(seen.nested).toBe(1);
  });

  it("any request carrying the hop header is 508 before authentication", async () => {
    const r = await SELF.fetch("http://hub.test/v1/envs?limit=1", {
      headers: { "x-edgegym-hop": "1", authorization: "Bearer not-a-token" },
    });
    expect(r.status).toBe(508);
    expect(((await r.json()) as { code: string }).code).toBe("loop_detected");
    // The built-in envs are not a gateway: a hub may publish another hub's /envs/<name>.
    const builtin = await SELF.fetch("http://hub.test/envs/calculator/v1/manifest", {
      headers: { "x-edgegym-hop": "1" },
    });
    expect(builtin.status).toBe(200);
  });
});

describe("server-side request forgery", () => {
  /** A deployed hub (private upstreams not allowed) whose every outbound fetch is recorded and answered with a valid manifest. */
  function deployedHub() {
    const fetched: string[] = [];
    const app = createHubApp({
      fetch: async (r) => {
        fetched.push(r.url);
        return Response.json(await calculatorManifest());
      },
    });
    const client = hubClient(async (r) => app.fetch(r, { ...env, HUB_ALLOW_PRIVATE_UPSTREAMS: "false" }));
    return { fetched, client };
  }

  it("refuses loopback, private, link-local, metadata and mapped addresses before fetching them", async () => {
    const a = await emptyEnv();
    const { fetched, client } = deployedHub();
    const port = new URL(stall).port;
    const refused = [
      `http://127.0.0.1:${port}/env`,
      "http://127.5.6.7/env",
      `http://[::1]:${port}/env`,
      `http://[::ffff:127.0.0.1]:${port}/env`,
      "http://[::ffff:a9fe:a9fe]/latest",
      "http://169.254.169.254/latest/meta-data",
      "http://10.0.0.8/env",
      "http://172.16.3.4/env",
      "http://192.168.1.1/env",
      "http://[fd00::1]/env",
      "http://[fe80::1]/env",
      `http://0.0.0.0:${port}/env`,
      "http://2130706433/env",
      `http://localhost:${port}/env`,
      "http://metadata.google.internal/computeMetadata/v1",
    ];
    for (const endpoint of refused) {
      const r = await client.call("POST", `/v1/envs/${a.team}/${a.name}/versions`, {
        token: a.token,
        body: { version: "1.0.0", endpoint },
      });
      expect(r.status, endpoint).toBe(422);
      expect(r.body.code).toBe("invalid_request");
      expect(r.body.issues[0].path).toBe("endpoint");
    }
    for (const endpoint of ["ftp://example.com/env", "file:///etc/passwd"]) {
      const r = await client.call("POST", `/v1/envs/${a.team}/${a.name}/versions`, {
        token: a.token,
        body: { version: "1.0.0", endpoint },
      });
      expect(r.status, endpoint).toBe(422);
    }
    expect(fetched).toEqual([]);
    // A public address is fetched as before.
    const ok = await client.call("POST", `/v1/envs/${a.team}/${a.name}/versions`, {
      token: a.token,
      body: { version: "1.0.0", endpoint: "https://envs.example.com/calculator" },
    });
    expect(ok.status).toBe(201);
    expect(fetched).toEqual(["https://envs.example.com/calculator/v1/manifest"]);
  });

  it("a stored private endpoint is not fetched by the gateway, and the error does not name it", async () => {
    const a = await emptyEnv();
    await storeVersion(a.team, a.name, "1.0.0", "http://10.1.2.3:8080/secret-env");
    const { fetched, client } = deployedHub();
    const r = await client.call("POST", `/v1/envs/${a.team}/${a.name}@1.0.0/v1/sessions`, {
      body: { split: "train", index: 0 },
    });
    expect(r.status).toBe(502);
    expect(r.body.code).toBe("upstream_unreachable");
    expect(JSON.stringify(r.body)).not.toMatch(/10\.1\.2\.3|secret-env/);
    expect(fetched).toEqual([]);
  });

  it("does not follow redirects (a public endpoint could redirect to an internal one)", async () => {
    const a = await emptyEnv();
    const key = uniqueName("m");
    await fetch(`${stall}/manifest/${key}`, {
      method: "PUT",
      body: JSON.stringify(await calculatorManifest()),
    });
    const r = await hub.call("POST", `/v1/envs/${a.team}/${a.name}/versions`, {
      token: a.token,
      body: { version: "1.0.0", endpoint: `${stall}/redirect/${key}` },
    });
    expect(r.status).toBe(502);
    expect(r.body.detail).toBe(
      "the environment answered with a redirect (HTTP 302), which the hub does not follow",
    );
  });
});

describe("a read share does not reveal the endpoint", () => {
  it("hides a private env's endpoint from readers in envs show, version reads and 502 details", async () => {
    const owner = await newTeam(hub);
    const reader = await newTeam(hub);
    const publisher = await newTeam(hub);
    let down = false;
    const app = createHubApp({
      fetch: async (r) => {
        if (down) throw new TypeError(`connect ECONNREFUSED ${r.url}`);
        return SELF.fetch(new Request(r.url.replace("private-upstream.test", "hub.test"), r));
      },
    });
    const client = hubClient(async (r) => app.fetch(r, env));
    const { name } = await newEnv(hub, owner, { visibility: "private" });
    const endpoint = "http://private-upstream.test/envs/calculator";
    const path = `/v1/envs/${owner.team}/${name}`;
    const pub = await client.call("POST", `${path}/versions`, {
      token: owner.token,
      body: { version: "1.1.0", endpoint },
    });
    expect(pub.status, JSON.stringify(pub.body)).toBe(201);
    for (const [team, role] of [
      [reader, "read"],
      [publisher, "publish"],
    ] as const) {
      await hub.call("POST", `${path}/shares`, { token: owner.token, body: { team: team.team, role } });
    }
    const shown = async (token: string) => {
      const show = await client.call("GET", path, { token });
      const version = await client.call("GET", `${path}/versions/1.1.0`, { token });
      return [show.body.versions[1].endpoint, version.body.endpoint];
    };
    expect(await shown(owner.token)).toEqual([endpoint, endpoint]);
    expect(await shown(publisher.token)).toEqual([endpoint, endpoint]);
    expect(await shown(reader.token)).toEqual([null, null]);
    // The gateway is the reader's way in; when the endpoint is down the 502 does not name it.
    const ok = await client.call("GET", `${path}@1.1.0/v1/manifest`, { token: reader.token });
    expect(ok.status).toBe(200);
    down = true;
    const bad = await client.call("GET", `${path}@1.1.0/v1/manifest`, { token: reader.token });
    expect(bad.status).toBe(502);
    expect(bad.body.code).toBe("upstream_unreachable");
    expect(JSON.stringify(bad.body)).not.toContain("private-upstream");
  });
});
