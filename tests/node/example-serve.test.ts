import { readFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { serveGuessNumber } from "../../environments/examples/guess-number/serve.js";

const ROOT = resolve(import.meta.dirname, "../..");
const FILE = "environments/examples/guess-number/serve.ts";

async function publicKeyOf(keyFile: string): Promise<unknown> {
  const server = await serveGuessNumber(keyFile);
  try {
    const res = await fetch(`${server.url}/envs/guess-number/v1/manifest`, {
      signal: AbortSignal.timeout(10_000),
    });
    return ((await res.json()) as { publicKey: unknown }).publicKey;
  } finally {
    await server.close();
  }
}

describe("the writing-an-environment serving example", () => {
  it("docs/writing-an-environment.md shows it byte for byte", () => {
    const doc = readFileSync(resolve(ROOT, "docs/writing-an-environment.md"), "utf8");
    const fence = `\`\`\`ts file=${FILE}\n`;
    const start = doc.indexOf(fence);
    expect(start, `the doc has no ${fence.trim()} block`).toBeGreaterThanOrEqual(0);
    const body = doc.slice(start + fence.length, doc.indexOf("\n```", start + fence.length) + 1);
    expect(body).toBe(readFileSync(resolve(ROOT, FILE), "utf8"));
    expect(doc).toMatch(/fresh keys on every\s+start/);
  });

  it("keeps its signing key across restarts, so a published version's receipts stay valid", async () => {
    const dir = await mkdtemp(join(tmpdir(), "edgegym-serve-"));
    const first = await publicKeyOf(join(dir, "keys"));
    expect(await publicKeyOf(join(dir, "keys"))).toEqual(first);
    // Another key file is another key: what a server generating keys at start would publish.
    expect(await publicKeyOf(join(dir, "other-keys"))).not.toEqual(first);
  });
});
