import { createHubApp } from "./app.js";

/** The Durable Object class of the MCP session store (wrangler.toml `EDGEGYM_MCP_SESSIONS`). */
export { McpSessionObject } from "../environments/kit/mcp/durable-store.js";

/** The Workers entry (wrangler.toml `main`): the hub API plus the built-in environments at `/envs/<name>`. */
export default createHubApp();
