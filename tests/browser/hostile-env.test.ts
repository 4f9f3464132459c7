import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalHub } from "../../trainer/pipeline/local-hub.js";
import { startTestHub } from "../../trainer/testing/test-hub.js";
import { type HostileUpstream, startHostileUpstream } from "../hub/hostile-upstream.js";
import { launchChromium, type TestBrowser } from "./chromium.js";

/**
 * A signed-in user in a real Chromium opens the gateway URLs of a public env whose endpoint answers
 * every request with a page that would replace the session cookie and mint an admin token. The hub
 * (workerd through `wrangler dev`, as `npm run dev` starts it) must hand the browser a problem, run no
 * script and leave the cookie as it was.
 */
let hub: LocalHub;
let browser: TestBrowser;
let upstream: HostileUpstream;
let page: Page;
const evil = `evil-${Date.now().toString(36)}`;

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(hub.url + path, {
    method,
    headers: {
      authorization: `Bearer ${hub.token}`,
      ...(body ? { "content-type": "application/json" } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The team's tokens as its account page lists them: one minted by a script would show up here. */
async function tokenIds(): Promise<string[]> {
  await page.goto(`${hub.url}/account`);
  const ids = await page
    .locator("tr[data-token-id]")
    .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-token-id") ?? ""));
  return ids.sort();
}

beforeAll(async () => {
  [hub, browser, upstream] = await Promise.all([
    startTestHub("hostile"),
    launchChromium(),
    startHostileUpstream(),
  ]);
  page = await browser.context.newPage();
  page.setDefaultTimeout(15_000);
  const manifest = await fetch(`${hub.url}/envs/calculator/v1/manifest`).then((r) => r.text());
  await fetch(`${upstream.url}/manifest/${evil}`, { method: "PUT", body: manifest });
  expect((await api("POST", "/v1/envs", { owner: "edgegym", name: evil, visibility: "public" })).status).toBe(
    201,
  );
  const pub = await api("POST", `/v1/envs/edgegym/${evil}/versions`, {
    version: "1.0.0",
    endpoint: `${upstream.url}/h/${evil}/html`,
  });
  expect(pub.status, JSON.stringify(pub.body)).toBe(201);
  await fetch(`${upstream.url}/arm/${evil}`, { method: "POST" });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await hub?.stop();
  await upstream?.close();
});

describe("a hostile env opened by a signed-in user", () => {
  it("runs no script and changes no cookie on the hub's origin", async () => {
    await page.goto(`${hub.url}/sign-in`);
    await page.fill('input[name="token"]', hub.token);
    await page.click('button:has-text("Sign in")');
    await page.waitForURL(`${hub.url}/account`);
    const before = await browser.context.cookies(hub.url);
    expect(before.length).toBeGreaterThan(0);
    const tokensBefore = await tokenIds();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));

    for (const path of ["mcp", "v1/manifest"]) {
      const res = await page.goto(`${hub.url}/v1/envs/edgegym/${evil}@1.0.0/${path}`);
      expect(res?.status(), path).toBe(502);
      expect(res?.headers()["content-type"], path).toBe("application/problem+json");
      // The page is the problem as text: no element of the env's page exists, nothing it ran is left.
      await expect(page.locator("script").count(), path).resolves.toBe(0);
      await expect(page.evaluate(() => (window as { __pwned?: boolean }).__pwned ?? false)).resolves.toBe(
        false,
      );
      await expect(page.content()).resolves.toContain("upstream_bad_response");
    }
    // A cross-site form can send text/plain to sessions: the browser posts it as a user's click would.
    const target = `${hub.url}/v1/envs/edgegym/${evil}@1.0.0/v1/sessions`;
    const [posted] = await Promise.all([
      page.waitForResponse((r) => r.url() === target),
      page.goto(`${upstream.url}/attack?action=${encodeURIComponent(target)}`),
    ]);
    await page.waitForURL(target);
    expect(posted?.status()).toBe(502);
    await expect(page.evaluate(() => (window as { __pwned?: boolean }).__pwned ?? false)).resolves.toBe(
      false,
    );

    const after = await browser.context.cookies(hub.url);
    expect(after).toEqual(before);
    expect(after.some((c) => c.value === "stolen")).toBe(false);
    expect(errors).toEqual([]);
    expect(await tokenIds()).toEqual(tokensBefore);
    // The session still works: the user is still signed in as themselves.
    await page.goto(`${hub.url}/account`);
    await expect(page.locator("h1").textContent()).resolves.toBe("Team edgegym");
  });
});
