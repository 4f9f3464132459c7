import { OpenAPIHono, type z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { EdgegymError, Problem, zodIssues } from "../shared/errors.js";
import type { AppEnv } from "./env.js";
import { checkRateLimit } from "./rate-limit.js";
import type { SlidingWindow } from "./sliding-window.js";

/**
 * What every hub route file builds on: an `OpenAPIHono<AppEnv>` sub-app whose schema failures are the
 * hub's 400 `invalid_request` problem with its `issues`, the helpers that describe a route's bodies
 * and problems in the OpenAPI document, and the middleware that hands routes the app's dependencies
 * on `c.var`. Route files import this, never hub/app.ts.
 */

export const ProblemSchema = Problem.openapi("Problem");

/** A request that does not match its route's schema: one problem listing every issue. */
export const validationHook = (result: { success: boolean; error?: unknown }) => {
  if (!result.success) {
    throw new EdgegymError("invalid_request", "the request does not match the schema", {
      issues: zodIssues(result.error as z.ZodError),
    });
  }
};

/** A sub-app of the hub (one per hub/routes file), mounted by hub/app.ts with `app.route("/", …)`. */
export function routeApp(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
}

/** Problem responses every route may give, for the OpenAPI document. */
export function problems(...statuses: number[]) {
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      { description: "problem", content: { "application/problem+json": { schema: ProblemSchema } } },
    ]),
  );
}

export function json<S extends z.ZodType>(schema: S, description = "ok") {
  return { description, content: { "application/json": { schema } } };
}

export function body<S extends z.ZodType>(schema: S) {
  return { body: { content: { "application/json": { schema } }, required: true } };
}

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
