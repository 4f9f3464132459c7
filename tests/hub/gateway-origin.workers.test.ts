import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createHubApp } from "../../hub/app.js";
import { type HubClient, hubClient, newTeam, uniqueName } from "./client.js";

/**
 * The gateway shares the hub's origin with the signed-in web pages, so what an env answers must stay
 * data. Each route is tried against a real hostile endpoint (tests/hub/hostile-upstream.ts, a Node
 * server workerd reaches over TCP) published as a public env.
 */
const hub = hubClient((r) => SELF.fetch(r));
const hostile = env.HUB_TEST_HOSTILE_URL;

/** Every gateway route an env answers: the edgegym/v1 operations and MCP's POST and GET. */
const ROUTES: { name: string; method: string; path: string; body?: unknown; mcp?: boolean }[] = [
  { name: "manifest", method: "GET", path: "v1/manifest" },
  { name: "sessions", method: "POST", path: "v1/sessions", body: { split: "train", index: 0 } },
  { name: "step", method: "POST", path: "v1/step", body: { session: "s", action: { content: "1" } } },
  { name: "step:batch", method: "POST", path: "v1/step:batch", body: { steps: [] } },
  { name: "expert", method: "POST", path: "v1/expert", body: { session: "s" } },
  {
    name: "mcp POST",
    method: "POST",
    path: "mcp",
    body: { jsonrpc: "2.0", id: 1, method: "ping" },
    mcp: true,
  },
  { name: "mcp GET", method: "GET", path: "mcp", mcp: true },
];

/** A public env whose 1.0.0 is the hostile endpoint in `mode`, armed after publishing. */
async function hostileEnv(client: HubClient, mode: string, stepTimeoutMs?: number) {
  const team = await newTeam(hub);
  const name = uniqueName("evil");
  const created = await hub.call("POST", "/v1/envs", {
    token: team.token,
    body: { owner: team.team, name, visibility: "public" },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const key = uniqueName("k");
  const manifest = (await SELF.fetch("http://hub.test/envs/calculator/v1/manifest").then((r) =>
    r.json(),
  )) as { limits: Record<string, number> };
  if (stepTimeoutMs) manifest.limits = { ...manifest.limits, stepTimeoutMs };
  await fetch(`${hostile}/manifest/${key}`, { method: "PUT", body: JSON.stringify(manifest) });
  const pub = await client.call("POST", `/v1/envs/${team.team}/${name}/versions`, {
    token: team.token,
    body: { version: "1.0.0", endpoint: `${hostile}/h/${key}/${mode}` },
  });
  expect(pub.status, JSON.stringify(pub.body)).toBe(201);
  await fetch(`${hostile}/arm/${key}`, { method: "POST" });
  return { key, base: `/v1/envs/${team.team}/${name}@1.0.0` };
}

async function send(
  fetcher: (r: Request) => Promise<Response>,
  base: string,
  route: (typeof ROUTES)[number],
  contentType = "application/json",
) {
  const headers: Record<string, string> = { accept: "application/json, text/event-stream" };
  if (route.body !== undefined) headers["content-type"] = contentType;
  return fetcher(
    new Request(`http://hub.test${base}/${route.path}`, {
      method: route.method,
      headers,
      ...(route.body !== undefined ? { body: JSON.stringify(route.body) } : {}),
    }),
  );
}

/** Nothing on the response can set state, widen access or run as a page. */
function expectDataOnly(res: Response, label: string) {
  expect(res.headers.get("x-content-type-options"), label).toBe("nosniff");
  expect(res.headers.get("content-security-policy"), label).toBe("default-src 'none'; sandbox");
  expect(res.headers.get("set-cookie"), label).toBeNull();
  expect(res.headers.get("refresh"), label).toBeNull();
  expect(res.headers.get("link"), label).toBeNull();
  const cors = [...res.headers.keys()].filter((h) => h.startsWith("access-control-"));
  expect(cors, label).toEqual([]);
}

describe("the gateway passes data, never markup", () => {
  it("an env answering a page (text/html, text/plain or untyped) is 502 naming the type, on every route", async () => {
    for (const mode of ["html", "plain", "untyped"]) {
      const { base } = await hostileEnv(hub, mode);
      for (const route of ROUTES) {
        const label = `${mode} ${route.name}`;
        const res = await send((r) => SELF.fetch(r), base, route);
        expect(res.status, label).toBe(502);
        expect(res.headers.get("content-type"), label).toBe("application/problem+json");
        expectDataOnly(res, label);
        const body = (await res.json()) as { code: string; detail: string };
        expect(body.code, label).toBe("upstream_bad_response");
        const named = mode === "html" ? "text/html" : mode === "plain" ? "text/plain" : "(none)";
        expect(body.detail, label).toContain(named);
        expect(body.detail, label).not.toContain("127.0.0.1");
      }
    }
  });

  it("a cross-site text/plain POST to sessions reaches no page either", async () => {
    const { base } = await hostileEnv(hub, "html");
    const res = await send((r) => SELF.fetch(r), base, ROUTES[1] as (typeof ROUTES)[number], "text/plain");
    expect(res.status).toBe(502);
    expectDataOnly(res, "text/plain sessions");
    expect(await res.text()).not.toContain("<script>");
  });

  it("JSON passes on every route, and an event stream on MCP's, with the env's cookies and CORS dropped", async () => {
    const { base } = await hostileEnv(hub, "json");
    for (const route of ROUTES) {
      const res = await send((r) => SELF.fetch(r), base, route);
      expect(res.status, route.name).toBe(200);
      expect(res.headers.get("content-type"), route.name).toBe("application/json");
      expectDataOnly(res, route.name);
      expect(res.headers.get("x-edgegym-version"), route.name).toBe("1.0.0");
      expect(((await res.json()) as { jsonrpc: string }).jsonrpc).toBe("2.0");
    }
    const sse = await hostileEnv(hub, "sse");
    for (const route of ROUTES) {
      const res = await send((r) => SELF.fetch(r), sse.base, route);
      expectDataOnly(res, `sse ${route.name}`);
      if (route.mcp) {
        expect(res.status, route.name).toBe(200);
        expect(res.headers.get("content-type")).toBe("text/event-stream");
        expect(await res.text()).toContain("event: message");
      } else {
        // edgegym/v1 is JSON only.
        expect(res.status, route.name).toBe(502);
        expect(((await res.json()) as { code: string }).code).toBe("upstream_bad_response");
      }
    }
  });

  it("a body past the hub's limit is 502, not held", async () => {
    const { base } = await hostileEnv(hub, "huge");
    const res = await send((r) => SELF.fetch(r), base, ROUTES[0] as (typeof ROUTES)[number]);
    expect(res.status).toBe(502);
    const body = (await res.json()) as { code: string; detail: string };
    expect(body.code).toBe("upstream_bad_response");
    expect(body.detail).toContain(String(8 * 1024 * 1024));
  });

  it("the hub's own answers on gateway and built-in paths carry the same headers", async () => {
    const missing = await SELF.fetch(`http://hub.test/v1/envs/nobody/${uniqueName("x")}@1.0.0/v1/manifest`);
    expect(missing.status).toBe(404);
    expectDataOnly(missing, "404");
    for (const path of ["/envs/calculator/v1/manifest", "/envs/calculator/mcp", "/envs"]) {
      expectDataOnly(await SELF.fetch(`http://hub.test${path}`), path);
    }
  });
});

describe("the gateway's deadline covers the body", () => {
  // The hub as deployed but with a short margin: each call may take stepTimeoutMs (50) + 100 ms.
  const app = createHubApp();
  const quick = (r: Request) =>
    Promise.resolve(app.fetch(r, { ...env, HUB_UPSTREAM_MARGIN_MS: "100", HUB_MANIFEST_TIMEOUT_MS: "2000" }));

  it("an env that sends 200 and then a byte at a time is 504 at the deadline, and the hub hangs up", async () => {
    const { key, base } = await hostileEnv(hubClient(quick), "drip", 50);
    for (const route of ROUTES) {
      const res = await send(quick, base, route);
      expect(res.status, route.name).toBe(504);
      expectDataOnly(res, route.name);
      const body = (await res.json()) as { code: string; detail: string };
      expect(body.code, route.name).toBe("upstream_timeout");
      expect(body.detail).toBe("the environment did not answer within 150 ms");
    }
    // The hub cancelled each upstream body, which closes its connection: no drip is left open.
    let open = -1;
    for (let i = 0; i < 100 && open !== 0; i++) {
      open = Number(await fetch(`${hostile}/open/${key}`).then((r) => r.text()));
      if (open !== 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(open).toBe(0);
  });
});
