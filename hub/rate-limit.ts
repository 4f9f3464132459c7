import type { Context, MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { EdgegymError } from "../shared/errors.js";
import type { AppEnv } from "./env.js";
import type { SlidingWindow } from "./sliding-window.js";

/**
 * Requests per period per caller, unless `HUB_RATE_LIMIT_REQUESTS` says otherwise. `0` turns both
 * limits off, the binding's too: for a hub that serves one trusted caller on its own machine (the
 * local hub of `npm start`, whose training would otherwise wait on the limit).
 */
export const DEFAULT_LIMIT = 1200;
/** The period in seconds, unless `HUB_RATE_LIMIT_PERIOD` says otherwise. */
export const DEFAULT_PERIOD_SECONDS = 60;

function setting(value: unknown, fallback: number): number {
  const n = Number(value);
  return typeof value === "string" && value.trim() !== "" && Number.isFinite(n) && n >= 0 ? n : fallback;
}

/**
 * Who the limits count a request against: a token by its id, anonymous callers by client IP (which
 * Cloudflare sets). Also the caller the built-ins' MCP bounds sessions by (`/envs/<name>/mcp`).
 */
export function callerKey(c: Context<AppEnv>): string {
  const p = c.get("principal");
  return p.kind === "token"
    ? `token:${p.tokenId}`
    : p.kind === "bootstrap"
      ? "bootstrap"
      : `ip:${c.req.header("cf-connecting-ip") ?? "local"}`;
}

/**
 * Per-principal rate limit: a token is limited by its id, anonymous callers by client IP. Two limits
 * apply. The hub's own sliding window (per isolate, exact: never more than the limit in any span of
 * the period, across window boundaries too) and, where it is bound (deployed), the Workers Rate
 * Limiting binding `HUB_RATE_LIMIT`, which counts across isolates (per Cloudflare location). Over
 * either: 429 `rate_limited` with Retry-After (the sliding window knows when the next request is
 * admitted; for the binding, which does not report it, the period).
 */
export async function checkRateLimit(c: Context<AppEnv>, window: SlidingWindow, now: number): Promise<void> {
  const p = c.get("principal");
  const key = callerKey(c);
  const limit = setting(c.env.HUB_RATE_LIMIT_REQUESTS, DEFAULT_LIMIT);
  const period = setting(c.env.HUB_RATE_LIMIT_PERIOD, DEFAULT_PERIOD_SECONDS) || DEFAULT_PERIOD_SECONDS;
  if (limit > 0) {
    const decision = window.take(key, now, limit, period * 1000);
    if (!decision.ok) {
      throw new EdgegymError("rate_limited", `rate limit exceeded for ${p.kind} caller`, {
        retryAfter: Math.max(1, Math.ceil(decision.retryAfterMs / 1000)),
      });
    }
  }
  const limiter = c.env.HUB_RATE_LIMIT;
  if (limit > 0 && limiter && !(await limiter.limit({ key })).success) {
    throw new EdgegymError("rate_limited", `rate limit exceeded for ${p.kind} caller`, {
      retryAfter: period,
    });
  }
}

/**
 * The limit as middleware, for every route but those matching `selfLimited` (which call
 * `checkRateLimit` themselves). `window` holds the counts: one per hub app.
 */
export function rateLimit(
  window: SlidingWindow,
  now: () => number,
  selfLimited: (path: string) => boolean = () => false,
): MiddlewareHandler<AppEnv> {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!selfLimited(c.req.path)) await checkRateLimit(c, window, now());
    await next();
  });
}
