import type { Context, MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { EdgegymError } from "../shared/errors.js";
import type { AppEnv } from "./env.js";

/**
 * Per-principal rate limit through the Workers Rate Limiting binding `HUB_RATE_LIMIT`: a token is
 * limited by its id, anonymous callers by client IP. Over the limit: 429 `rate_limited` with
 * Retry-After (the binding's period, since it does not report the exact reset time).
 */
export async function checkRateLimit(c: Context<AppEnv>): Promise<void> {
  const limiter = c.env.HUB_RATE_LIMIT;
  if (!limiter) return;
  const p = c.get("principal");
  const key =
    p.kind === "token"
      ? `token:${p.tokenId}`
      : p.kind === "bootstrap"
        ? "bootstrap"
        : `ip:${c.req.header("cf-connecting-ip") ?? "local"}`;
  const { success } = await limiter.limit({ key });
  if (!success) {
    const period = Number(c.env.HUB_RATE_LIMIT_PERIOD ?? 60);
    throw new EdgegymError("rate_limited", `rate limit exceeded for ${p.kind} caller`, {
      retryAfter: Number.isFinite(period) && period > 0 ? period : 60,
    });
  }
}

/** The limit as middleware, for every route but those matching `selfLimited` (which call it themselves). */
export function rateLimit(selfLimited: (path: string) => boolean = () => false): MiddlewareHandler<AppEnv> {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!selfLimited(c.req.path)) await checkRateLimit(c);
    await next();
  });
}
