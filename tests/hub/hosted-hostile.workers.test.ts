import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createHubApp } from "../../hub/app.js";
import type { HostedBundle } from "../../shared/hosted.js";
import { hubClient, newTeam } from "./client.js";
import { hostileBundle, oneModule, pushEnv } from "./hosted/push.js";

const hub = hubClient((r) => SELF.fetch(r));

/**
 * One pushed env whose `POST /v1/sessions` runs the hostile case its body's `split` names (every
 * other route is guess-number's, so it publishes): each case is one request through the gateway.
 */
const HOSTILE = `
  const body = await request.json();
  const { split } = body;
  const json = (value) => Response.json(value);
  const refusal = async (url) => {
    try {
      const r = await fetch(url);
      return json({ reached: r.status });
    } catch (e) {
      return json({ refused: String(e && e.message) });
    }
  };
  switch (split) {
    case "loop": for (;;) {}
    case "caught-loop": for (;;) { try { for (;;) {} } catch {} }
    case "async-loop": for (;;) await null;
    case "recursion": { const f = (n) => f(n + 1) + 1; return json({ n: f(0) }); }
    case "throw": throw new Error("the env's own bug");
    case "internet": return refusal("http://example.com/");
    case "hub": return refusal("http://hub.test/healthz");
    case "loopback": return refusal("http://127.0.0.1:8787/healthz");
    case "fetch": return refusal(body.url);
    case "bindings": return json({ keys: Object.keys(env).sort(), db: typeof env.DB, bundles: typeof env.HUB_BUNDLES, loader: typeof env.LOADER, admin: typeof env.HUB_ADMIN_TOKEN });
    case "alloc": { const a = new Uint8Array(100 * 1024 * 1024); a.fill(7); return json({ bytes: a.length, last: a[a.length - 1] }); }
    case "huge": return new Response("x".repeat(50 * 1024 * 1024), { headers: { "content-type": "application/json" } });
    case "garbage": return new Response("<html>not json</html>", { headers: { "content-type": "text/html" } });
    case "modules": return json({ text, data, bytes: [...new Uint8Array(bytes)], doubled: double(21) });
  }
  return json({ split });
`;

const extraModules: HostedBundle["modules"] = [
  { name: "data/words.txt", type: "text", content: "alpha beta" },
  { name: "data/catalog.json", type: "json", content: '{"items":[1,2,3]}' },
  { name: "data/blob.bin", type: "data", content: btoa(String.fromCharCode(0, 1, 254, 255)) },
  // An ES module in a folder: its guard import is relative to its own path.
  { name: "lib/double.js", type: "esm", content: "export const double = (x) => x * 2;" },
];

let base = "";

beforeAll(async () => {
  const a = await newTeam(hub);
  const bundle = hostileBundle(
    HOSTILE,
    `import text from "./data/words.txt"; import data from "./data/catalog.json"; import bytes from "./data/blob.bin"; import { double } from "./lib/double.js";`,
  );
  const pushed = await pushEnv(hub, a, { ...bundle, modules: [...bundle.modules, ...extraModules] });
  if (pushed.published.status !== 201) throw new Error(JSON.stringify(pushed.published.body));
  base = `/v1/envs/${pushed.ref}`;
});

const session = (split: string) => hub.call("POST", `${base}/v1/sessions`, { body: { split } });

/** After every hostile call the hub answers, and so does the same env for an honest session. */
async function stillServing() {
  expect((await hub.call("GET", "/healthz")).body).toEqual({ ok: true });
  const honest = await hub.call("GET", `${base}/v1/manifest`);
  expect(honest.status).toBe(200);
  expect(honest.body.name).toBe("guess-number");
}

describe("a hosted env's hostile code is contained", () => {
  it.each(["loop", "caught-loop", "async-loop"])("%s: a problem, not a frozen hub", async (split) => {
    const r = await session(split);
    expect(r.status).toBe(502);
    expect(r.body.code).toBe("env_cpu_exceeded");
    await stillServing();
  });

  it("an exception or a stack overflow in the env is a problem", async () => {
    for (const split of ["throw", "recursion"]) {
      const r = await session(split);
      expect(r.status, split).toBe(502);
      expect(r.body.code, split).toBe("upstream_bad_response");
    }
    await stillServing();
  });

  it("has no network: neither the internet nor the hub itself", async () => {
    for (const split of ["internet", "hub", "loopback"]) {
      const r = await session(split);
      expect(r.body.refused, split).toMatch(/not permitted to access the internet/);
    }
    await stillServing();
  });

  it("sees only its own secrets, never the hub's D1, bucket, loader or admin token", async () => {
    const r = await session("bindings");
    expect(r.body).toEqual({
      keys: ["EDGEGYM_SESSION_KEY", "EDGEGYM_SIGNING_KEY"],
      db: "undefined",
      bundles: "undefined",
      loader: "undefined",
      admin: "undefined",
    });
  });

  it("a 50 MB answer is cut off at the hub's cap; a 100 MB allocation costs the hub nothing", async () => {
    const huge = await session("huge");
    expect(huge.status).toBe(502);
    expect(huge.body.code).toBe("upstream_bad_response");
    // Local workerd sets no memory limit (the allocation succeeds); Cloudflare's isolate limit is 128 MB.
    const alloc = await session("alloc");
    expect(alloc.status === 200 ? alloc.body : alloc.body.code).toEqual(
      alloc.status === 200 ? { bytes: 100 * 1024 * 1024, last: 7 } : "upstream_bad_response",
    );
    const garbage = await session("garbage");
    expect(garbage.body.code).toBe("upstream_bad_response");
    await stillServing();
  });

  it("is told each MCP caller's key, so the kit's per-client session bounds hold per caller", async () => {
    const a = await newTeam(hub);
    const viaToken = await hub.call("POST", `${base}/mcp?echo`, { token: a.token, body: {} });
    expect(viaToken.body).toEqual({ client: `token:${a.tokenId}` });
    const anonymous = await hub.call("POST", `${base}/mcp?echo`, { body: {} });
    expect(anonymous.body.client).toMatch(/^ip:/);
  });

  it("imports its text, json and data modules, and ES modules in folders", async () => {
    const r = await session("modules");
    expect(r.body).toEqual({
      text: "alpha beta",
      data: { items: [1, 2, 3] },
      bytes: [0, 1, 254, 255],
      doubled: 42,
    });
  });
});

describe("an env that declares outbound hosts", () => {
  let gated = "";
  beforeAll(async () => {
    const a = await newTeam(hub);
    const pushed = await pushEnv(hub, a, { ...hostileBundle(HOSTILE), outbound: ["127.0.0.1"] });
    if (pushed.published.status !== 201) throw new Error(JSON.stringify(pushed.published.body));
    gated = `/v1/envs/${pushed.ref}`;
  });
  const fetchVia = (url: string) =>
    hub.call("POST", `${gated}/v1/sessions`, { body: { split: "fetch", url } });

  it("reaches a declared host through the hub's gate, and nothing else", async () => {
    const open = await fetchVia(`${env.HUB_TEST_HOSTILE_URL}/open/gate-test`);
    expect(open.body).toEqual({ reached: 200 });
    for (const url of ["http://example.com/", "http://localhost:8787/healthz", "http://127.0.0.2/"]) {
      const r = await fetchVia(url);
      expect(r.body.refused, url).toMatch(/may not fetch/);
    }
    await stillServing();
  });

  it("is refused at publish when a declared host breaks the endpoint rules", async () => {
    // As on a deployed hub: private, loopback and local names are not allowed.
    const deployed = createHubApp();
    const strict = hubClient(async (r) =>
      deployed.fetch(r, { ...env, HUB_ALLOW_PRIVATE_UPSTREAMS: "false" }),
    );
    const a = await newTeam(strict);
    for (const host of ["127.0.0.1", "metadata.google.internal", "localhost"]) {
      const r = await pushEnv(strict, a, { ...oneModule(""), outbound: [host] });
      expect([r.published.status, r.published.body.code], host).toEqual([422, "bundle_invalid"]);
    }
  });
});
