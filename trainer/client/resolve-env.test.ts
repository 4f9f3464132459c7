import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { describe, expect, it } from "vitest";
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
