import { createEnvironmentsHost } from "./host.js";

/** The Durable Object class of the MCP session store (wrangler.toml `EDGEGYM_MCP_SESSIONS`). */
export { McpSessionObject } from "./kit/mcp/durable-store.js";

/** The Workers entry: `wrangler dev` and `wrangler deploy` serve the built-in environments from here. */
export default createEnvironmentsHost();
