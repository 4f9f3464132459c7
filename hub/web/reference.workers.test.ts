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
