import { describe, expect, it } from "vitest";
import { generateSecrets } from "../../environments/kit/index.js";
import { startWorkerd } from "./workerd-host.js";

/**
 * The benchmark's workerd hosts, built as `npm run bench:envs` builds them: `wrangler deploy --dry-run`
 * under wrangler.toml (which binds the MCP sessions' Durable Object class), then the workerd binary.
 */
describe("the envs-only worker on workerd", () => {
  it("bundles under wrangler.toml and serves the environments, MCP included", async () => {
    const server = await startWorkerd(await generateSecrets(), "environments/worker.ts");
    try {
      const index = (await (await fetch(`${server.origin}/envs`)).json()) as { environments: unknown[] };
      expect(index.environments.length).toBeGreaterThan(0);
      const init = await fetch(`${server.origin}/envs/calculator/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "t", version: "1" },
          },
        }),
      });
      expect(init.status).toBe(200);
      expect(init.headers.get("mcp-session-id")).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      server.stop();
    }
  }, 120_000);

  it("says in one line why an entry cannot be bundled, not with a stack of wrangler's output", async () => {
    // environments/host.ts exports no McpSessionObject, which wrangler.toml binds.
    const failed = startWorkerd({}, "environments/host.ts");
    await expect(failed).rejects.toThrow(
      /^wrangler could not bundle environments\/host\.ts: Your Worker depends on the following Durable Objects, which are not exported in your entrypoint file: McpSessionObject\.$/,
    );
  }, 120_000);
});
