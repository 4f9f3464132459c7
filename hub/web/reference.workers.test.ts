import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

describe("the API reference", () => {
  it("loads Scalar's script from the hub itself, and the hub serves it", async () => {
    const page = await (await SELF.fetch("http://hub.test/v1/reference")).text();
    expect(page).toContain('src="/v1/reference/scalar.js"');
    expect(page).not.toMatch(/cdn\.jsdelivr|unpkg\.com|https:\/\/cdn\./);
    const script = await SELF.fetch("http://hub.test/v1/reference/scalar.js");
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toContain("javascript");
    const text = await script.text();
    // The standalone bundle defines the global the page's inline script calls.
    expect(text.length).toBeGreaterThan(1_000_000);
    expect(text).toContain("createApiReference");
  });
});

describe("the API reference's headers", () => {
  it("can't be framed or sniffed, and runs only the hub's script and its own start-up script", async () => {
    const res = await SELF.fetch("http://hub.test/v1/reference");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const csp = res.headers.get("content-security-policy") ?? "";
    const directives = new Map(
      csp.split(";").map((d) => {
        const [name = "", ...values] = d.trim().split(/\s+/);
        return [name, values] as const;
      }),
    );
    expect(directives.get("default-src")).toEqual(["'none'"]);
    expect(directives.get("frame-ancestors")).toEqual(["'none'"]);
    expect(directives.get("connect-src")).toEqual(["'self'"]);
    // The inline script Scalar's page starts with, by its own SHA-256; no unsafe-inline or eval.
    const page = await res.text();
    const inline = [...page.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
      (m) => m[1] ?? "",
    );
    expect(inline).toHaveLength(1);
    expect(inline[0]).toContain("createApiReference");
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(inline[0])));
    const hash = `'sha256-${btoa(String.fromCharCode(...digest))}'`;
    expect(directives.get("script-src")).toEqual(["'self'", hash]);
    const script = await SELF.fetch("http://hub.test/v1/reference/scalar.js");
    expect(script.headers.get("x-content-type-options")).toBe("nosniff");
    await script.body?.cancel();
  });
});
