import type { MiddlewareHandler } from "hono";
import { EdgegymError } from "../shared/errors.js";

/**
 * What the gateway hands back of an env's answer. The gateway shares its origin with the signed-in web
 * pages, so what an env sends must stay data: a page from an env would run with the reader's cookies.
 * Hence three rules, for built-ins and endpoints alike:
 * - only the media types edgegym/v1 and MCP use pass; anything else is `502 upstream_bad_response`;
 * - only the headers the protocols define pass (no `Set-Cookie`, no `Access-Control-*`, no CSP or
 *   `Refresh` or `Link` of the env's);
 * - every response (the hub's own problems too) carries `SECURITY_HEADERS`: never sniffed into markup,
 *   and, were it ever rendered, a sandboxed document with an opaque origin that can run nothing.
 */
export const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "content-security-policy": "default-src 'none'; sandbox",
} as const;

/** The env response headers that pass, lower-case: MCP's session and revision, retry hints. */
const PASSED_HEADERS = [
  "content-type",
  "mcp-session-id",
  "mcp-protocol-version",
  "retry-after",
  "cache-control",
];

const JSON_TYPES = new Set(["application/json", "application/problem+json"]);
/** MCP's Streamable HTTP may answer a POST with an event stream. */
const MCP_TYPES = new Set([...JSON_TYPES, "text/event-stream"]);

export type GatewayResponseOptions = {
  /** The gateway route is MCP's: an event stream may pass. */
  mcp: boolean;
  /** Headers the hub sets (request id, resolved version). */
  headers: Record<string, string>;
};

/**
 * `res` (an env answer whose body `callUpstream` has read in full) as the gateway sends it on: the
 * media type checked, the headers reduced to `PASSED_HEADERS` plus the hub's own. A response without
 * a content type passes only when its body is empty (MCP's `202 Accepted`).
 */
export async function gatewayResponse(res: Response, options: GatewayResponseOptions): Promise<Response> {
  const body = await res.arrayBuffer();
  const declared = res.headers.get("content-type");
  const type = declared?.split(";", 1)[0]?.trim().toLowerCase() ?? "";
  const allowed = options.mcp ? MCP_TYPES : JSON_TYPES;
  if (declared === null ? body.byteLength > 0 : !allowed.has(type)) {
    throw new EdgegymError(
      "upstream_bad_response",
      `the environment answered with content-type ${declared === null ? "(none)" : JSON.stringify(declared.slice(0, 100))}; the gateway passes only ${[...allowed].join(", ")}`,
    );
  }
  const headers = new Headers();
  for (const name of PASSED_HEADERS) {
    const value = res.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  for (const [name, value] of Object.entries(options.headers)) headers.set(name, value);
  return new Response(res.status === 204 || res.status === 205 || res.status === 304 ? null : body, {
    status: res.status,
    headers,
  });
}

/**
 * Adds `SECURITY_HEADERS` to every response of the routes it guards (the gateway, the built-ins at
 * `/envs`), including the hub's own problems, so no answer on those paths can be rendered as a page.
 */
export function dataOnly(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    try {
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
    } catch {
      // A response straight from `fetch` has immutable headers: copy it once.
      const res = new Response(c.res.body, c.res);
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.headers.set(name, value);
      c.res = res;
    }
  };
}
