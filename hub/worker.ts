import { createHubApp } from "./app.js";
import type { HubBindings } from "./env.js";
import { rememberGate } from "./hosted/outbound.js";

/** The Durable Object class of the MCP session store (wrangler.toml `EDGEGYM_MCP_SESSIONS`). */
export { McpSessionObject } from "../environments/kit/mcp/durable-store.js";
/** The outbound gate of hosted envs that declare hosts, reached through `ctx.exports`. */
export { HostedOutbound } from "./hosted/outbound.js";

const app = createHubApp();

/** The Workers entry (wrangler.toml `main`): the hub API plus the built-in environments at `/envs/<name>`. */
export default {
  fetch(request: Request, env: HubBindings, ctx: { exports?: Record<string, unknown> }) {
    rememberGate(ctx.exports);
    return app.fetch(request, env, ctx as Parameters<typeof app.fetch>[2]);
  },
};
