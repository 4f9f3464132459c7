import { Hono } from "hono";

/**
 * The ceiling: a Hono app that answers every POST with a small fixed JSON, served by the same hosts
 * and driven by the same load generator as the environments. What it reaches is what this machine
 * can do at all with HTTP, Hono and the generator sharing the CPU; no environment can go faster.
 */
export const trivialApp = new Hono();
trivialApp.post("*", (c) => c.json({ session: "trivial", done: false }));

/** wrangler.toml binds this Durable Object class, so every entry bundled under it must export it. */
export { McpSessionObject } from "../../environments/kit/mcp/durable-store.js";

/** The workerd entry when the benchmark bundles this file. */
export default trivialApp;
