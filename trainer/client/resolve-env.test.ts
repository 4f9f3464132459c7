import { mkdtemp, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { describe, expect, it } from "vitest";
import { runImport } from "../../environments/node/import-command.js";
import { EnvClient } from "./env-client.js";
import { resolveEnv } from "./resolve-env.js";

describe("resolveEnv", () => {
  it("runs local:<name> in-process", async () => {
    const transport = await resolveEnv("local:calculator", { connections: 2 });
    if (!transport.ok) throw new Error(transport.error);
    const client = new EnvClient(transport.value);
    const manifest = await client.manifest();
    expect(manifest.ok && manifest.value.name).toBe("calculator");
    const start = await client.reset({ split: "test", index: 3 });
    expect(start.ok && start.value.task).toEqual({ split: "test", index: 3 });
  });

  it("serves a dataset-backed built-in from the local file that npm run data imports into", async () => {
    const dir = await mkdtemp(join(tmpdir(), "edgegym-local-data-"));
    const rows = [
      { question: "Ann has 2 pens and buys 3. How many?", answer: "She has <<2+3=5>>5.\n#### 5" },
      { question: "Ben has 9 cards and gives 4 away. How many?", answer: "<<9-4=5>>5 left.\n#### 5" },
    ];
    await writeFile(join(dir, "train.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n"));
    const file = join(dir, "data.db");
    const imported = await runImport({ kind: "gsm8k", path: join(dir, "train.jsonl"), db: file });
    if (!imported.ok) throw new Error(imported.error);
    const transport = await resolveEnv("local:calculator-gsm8k", {
      connections: 1,
      env: { EDGEGYM_DATA_DB: file },
    });
    if (!transport.ok) throw new Error(transport.error);
    const manifest = await new EnvClient(transport.value).manifest();
    if (!manifest.ok) throw new Error(manifest.error.detail);
    expect(manifest.value.splits.train).toBe(2);
  });

  it("runs local:<name>@<version> for an archived version of a built-in, and no other version", async () => {
    const transport = await resolveEnv("local:webshop-l1@1.8.0", { connections: 1 });
    if (!transport.ok) throw new Error(transport.error);
    const manifest = await new EnvClient(transport.value).manifest();
    expect(manifest.ok && [manifest.value.name, manifest.value.version]).toEqual(["webshop-l1", "1.8.0"]);
    expect(await resolveEnv("local:webshop-l1@1.7.0", { connections: 1 })).toEqual({
      ok: false,
      error: 'no built-in environment named "webshop-l1" at 1.7.0',
    });
  });

  it("rejects an unknown built-in and an unknown form", async () => {
    expect(await resolveEnv("local:nope", { connections: 1 })).toMatchObject({ ok: false });
    expect(await resolveEnv("ftp://x", { connections: 1 })).toMatchObject({ ok: false });
  });

  it("sends hub:// through the gateway path with the bearer token", async () => {
    const seen: { path?: string; auth?: string | null } = {};
    const server = serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: (req) => {
        seen.path = new URL(req.url).pathname;
        seen.auth = req.headers.get("authorization");
        return Response.json({ code: "not_found" }, { status: 404 });
      },
    });
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    const hub = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const env = { EDGEGYM_HUB_URL: hub, EDGEGYM_TOKEN: "tok-123", XDG_CONFIG_HOME: "/nonexistent" };
    const transport = await resolveEnv("hub://acme/calculator@1.0.0", { connections: 1, env });
    if (!transport.ok) throw new Error(transport.error);
    const client = new EnvClient(transport.value);
    expect(await client.manifest()).toMatchObject({ ok: false, error: { kind: "rejected", status: 404 } });
    expect(seen).toEqual({ path: "/v1/envs/acme/calculator@1.0.0/v1/manifest", auth: "Bearer tok-123" });
    await client.close();
    server.close();
  });
});
