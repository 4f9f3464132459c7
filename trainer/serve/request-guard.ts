import { isIP } from "node:net";
import type { MiddlewareHandler } from "hono";
import { type OpenAIError, openAIError } from "./openai-error.js";

const WILDCARDS = new Set(["0.0.0.0", "::", "[::]"]);

const bare = (host: string) => host.toLowerCase().replace(/^\[(.*)\]$/, "$1");

function isLoopback(host: string): boolean {
  const h = bare(host);
  return h === "localhost" || h === "::1" || (isIP(h) === 4 && h.startsWith("127."));
}

/** The hostname a `Host` header names (its port dropped), or null when it is not one. */
function hostnameOf(header: string | undefined): string | null {
  if (!header) return null;
  try {
    return bare(new URL(`http://${header}`).hostname);
  } catch {
    return null;
  }
}

/**
 * Whether a request naming `header` may reach a server bound to `bound`. A page that rebinds its own
 * DNS name to this machine still sends that name in `Host`, so only names that can't be rebound
 * pass: the bound name itself, the loopback names when bound to loopback or to every interface, and
 * any address literal when bound to every interface (LAN clients by IP). The port is not compared:
 * through an SSH tunnel or a port mapping the client's port differs from the bound one.
 */
export function hostAllowed(bound: string, header: string | undefined): boolean {
  const name = hostnameOf(header);
  if (name === null) return false;
  if (name === bare(bound)) return true;
  const wildcard = WILDCARDS.has(bound);
  if (isLoopback(name)) return wildcard || isLoopback(bound);
  return wildcard && isIP(name) !== 0;
}

/** `application/json`, parameters such as `; charset=utf-8` allowed. */
function isJson(contentType: string | undefined): boolean {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() === "application/json";
}

/**
 * Refuses what a web page in the user's browser could send to this server: a `Host` that is not
 * the bound address (DNS rebinding, 403 `host_not_allowed`) and a POST whose body is not declared
 * JSON (a cross-site form or `text/plain` fetch needs no preflight, 415 `unsupported_media_type`).
 */
export function requestGuard(bound: string, fail: (e: OpenAIError) => Response): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header("host");
    if (!hostAllowed(bound, host))
      return fail(
        openAIError(
          403,
          `Host ${JSON.stringify(host ?? "")} is not this server's address (${bound}); start edgegym serve with --host set to the name clients use`,
          "host_not_allowed",
        ),
      );
    if (c.req.method === "POST" && !isJson(c.req.header("content-type")))
      return fail(
        openAIError(
          415,
          `request bodies must be application/json, got ${JSON.stringify(c.req.header("content-type") ?? "none")}`,
          "unsupported_media_type",
        ),
      );
    await next();
  };
}
