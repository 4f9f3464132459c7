import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./env.js";
import { checkRateLimit } from "./rate-limit.js";
import type { SlidingWindow } from "./sliding-window.js";

export type DepsOptions = {
  now: () => number;
  fetch: (request: Request) => Promise<Response>;
  /** The hub app's rate-limit counts, which `c.var.limit()` checks the request against. */
  window: SlidingWindow;
};

/**
 * Puts the hub app's dependencies on `c.var` (`now`, `fetch`, `limit`) for every request, so route
 * files are plain sub-apps that take nothing from hub/app.ts: one hub app's clock and upstream fetch
 * (tests replace both) reach every route it mounts.
 */
export function provideDeps({ now, fetch, window }: DepsOptions) {
  return createMiddleware<AppEnv>(async (c, next) => {
    c.set("now", now);
    c.set("fetch", fetch);
    c.set("limit", () => checkRateLimit(c, window, now()));
    await next();
  });
}
