import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { hubClient, newTeam } from "../../tests/hub/client.js";
import { createHubApp } from "../app.js";
import { WEB_SESSION_TTL_MS } from "../auth/web-sessions.js";
import { WEB_BODY_MAX_BYTES } from "./routes.js";

const hub = hubClient((r) => SELF.fetch(r));
const BASE = "http://hub.test";

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/** A form POST from the hub's own origin, through `fetcher` (the worker itself unless told). */
function post(
  path: string,
  body: BodyInit,
  headers: Record<string, string> = {},
  fetcher = SELF.fetch.bind(SELF),
) {
  return fetcher(
    new Request(BASE + path, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: BASE, ...headers },
      body,
      // A streamed body needs half-duplex in workerd's fetch as in browsers'.
      ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
    } as RequestInit),
  );
}

type Fetcher = (r: Request) => Promise<Response>;
const viaWorker: Fetcher = (r) => SELF.fetch(r);

const get = (path: string, cookie: string, fetcher = viaWorker) =>
  fetcher(new Request(BASE + path, { headers: { cookie }, redirect: "manual" }));

async function signIn(token: string) {
  const res = await post("/sign-in", form({ token }));
  expect(res.status).toBe(303);
  const set = res.headers.get("set-cookie") ?? "";
  return { set, cookie: set.split(";")[0] ?? "" };
}

/** The signed-in account page and its form token, or the redirect a signed-out visitor gets. */
async function account(cookie: string, fetcher = viaWorker) {
  const res = await get("/account", cookie, fetcher);
  const text = await res.text();
  return {
    status: res.status,
    location: res.headers.get("location"),
    csrf: /name="_csrf" value="([0-9a-f]+)"/.exec(text)?.[1] ?? "",
  };
}

describe("web sessions", () => {
  it("the cookie is a session of its own, not the API token, and shorter-lived", async () => {
    const a = await newTeam(hub);
    const { set, cookie } = await signIn(a.token);
    expect(cookie).toMatch(/^edgegym_session=ews_[\w-]{43}$/);
    expect(set).not.toContain(a.token);
    const maxAge = Number(/Max-Age=(\d+)/i.exec(set)?.[1]);
    expect(maxAge).toBe(WEB_SESSION_TTL_MS / 1000);
    // Stored hashed: the table holds the SHA-256 of the cookie's secret, never the secret.
    const secret = cookie.slice("edgegym_session=".length);
    const rows = await env.DB.prepare("select hash from hub_web_sessions where token_id = ?")
      .bind(a.tokenId)
      .all<{ hash: string }>();
    expect(rows.results).toHaveLength(1);
    expect(rows.results[0]?.hash).not.toContain(secret);
    expect((await account(cookie)).status).toBe(200);
    // The API token itself in the cookie signs nobody in.
    expect((await account(`edgegym_session=${a.token}`)).location).toBe("/sign-in");
  });

  it("sign-out ends the session: a copy of the cookie signs nobody in, the API token keeps working", async () => {
    const a = await newTeam(hub);
    const { cookie } = await signIn(a.token);
    const { csrf } = await account(cookie);
    const out = await post("/sign-out", form({ _csrf: csrf }), { cookie });
    expect(out.status).toBe(303);
    expect(out.headers.get("set-cookie")).toMatch(/^edgegym_session=;.*Max-Age=0/i);
    // The copied cookie, sent again after sign-out: anonymous, and told to clear it.
    const again = await get("/account", cookie);
    expect([again.status, again.headers.get("location")]).toEqual([303, "/sign-in"]);
    expect(again.headers.get("set-cookie")).toMatch(/^edgegym_session=;/);
    expect((await hub.call("GET", "/v1/envs?limit=1", { token: a.token })).status).toBe(200);
    // Another session of the same token is not ended by this one's sign-out.
    const other = await signIn(a.token);
    expect((await account(other.cookie)).status).toBe(200);
  });

  it("ends when its token is revoked, when its hours are over, and never outlives its token", async () => {
    const a = await newTeam(hub);
    const { cookie } = await signIn(a.token);
    const later = createHubApp({ now: () => Date.now() + WEB_SESSION_TTL_MS + 60_000 });
    const late = account(cookie, async (r) => later.fetch(r, env));
    expect((await late).location).toBe("/sign-in");
    expect((await account(cookie)).status).toBe(200);
    expect((await hub.call("DELETE", `/v1/tokens/${a.tokenId}`, { token: a.token })).status).toBe(204);
    expect((await account(cookie)).location).toBe("/sign-in");

    const hour = new Date(Date.now() + 3_600_000).toISOString();
    const b = await newTeam(hub, ["read", "admin"], { expiresAt: hour });
    const short = await signIn(b.token);
    expect(Number(/Max-Age=(\d+)/i.exec(short.set)?.[1])).toBeLessThanOrEqual(3_600);
  });
});

describe("web body limits", () => {
  it("a 12 MiB POST /sign-in is a 413 problem, refused from its Content-Length", async () => {
    const big = form({ token: "x".repeat(12 * 1024 * 1024) });
    const res = await post("/sign-in", big);
    expect(res.status).toBe(413);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(((await res.json()) as { code: string }).code).toBe("body_too_large");
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  it("every form route refuses a body past the limit, a streamed one after reading little more than the limit", async () => {
    const a = await newTeam(hub);
    const { cookie } = await signIn(a.token);
    const routes = [
      "/sign-in",
      "/sign-out",
      "/tokens",
      `/tokens/${a.tokenId}/revoke`,
      `/${a.team}/x/shares`,
      `/${a.team}/x/shares/t/revoke`,
    ];
    for (const path of routes) {
      let sent = 0;
      const chunk = new Uint8Array(64 * 1024).fill(0x61);
      const stream = new ReadableStream<Uint8Array>({
        pull(ctrl) {
          if (sent >= 12 * 1024 * 1024) return ctrl.close();
          sent += chunk.length;
          ctrl.enqueue(chunk);
        },
      });
      const res = await post(path, stream, { cookie });
      expect([path, res.status]).toEqual([path, 413]);
      expect(((await res.json()) as { code: string }).code).toBe("body_too_large");
      // Read up to the limit and a little buffering past it, never the 12 MiB.
      expect(sent).toBeLessThan(2 * 1024 * 1024);
    }
    // The token was not revoked by any of the refused posts.
    expect((await account(cookie)).status).toBe(200);
    const fits = await post(
      "/sign-in",
      form({ token: "egh_nope", pad: "p".repeat(WEB_BODY_MAX_BYTES - 100) }),
    );
    expect(fits.status).toBe(401);
  });
});
