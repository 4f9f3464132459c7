/**
 * Which JavaScript runtime this isolate runs on, decided once at load. Code that has a faster or a
 * only-possible path on one runtime (Node's `Buffer` and `node:crypto`, Node's worker threads,
 * workerd's imported wasm modules) asks here instead of sniffing globals itself.
 */
const g = globalThis as {
  navigator?: { userAgent?: string };
  process?: { release?: { name?: string }; getBuiltinModule?: (id: string) => unknown };
};

const userAgent = g.navigator?.userAgent ?? "";

/** workerd (Cloudflare Workers, miniflare, the vitest workers pool): no threads, wasm only as modules. */
export const onWorkerd = userAgent === "Cloudflare-Workers";

/**
 * Node itself. Node ≥ 21 says so in `navigator.userAgent`; Node 20 has no `navigator`, only
 * `process.release`. workerd's `nodejs_compat` also has a `process`, so it is ruled out first: its
 * `Buffer` is JavaScript over `Uint8Array`, and it has no worker threads.
 */
export const onNode = !onWorkerd && (userAgent.startsWith("Node.js") || g.process?.release?.name === "node");

/**
 * A Node built-in module (`node:crypto`, …) loaded synchronously, only on Node (`undefined` elsewhere,
 * and on Node before 22.3, which lacks `process.getBuiltinModule`). The caller names its own slice
 * of the module's type, so this file needs no Node types.
 */
export function nodeBuiltin<T>(id: `node:${string}`): T | undefined {
  return onNode ? (g.process?.getBuiltinModule?.(id) as T | undefined) : undefined;
}
