import { OpenAPIHono, type z } from "@hono/zod-openapi";
import { EdgegymError, Problem, zodIssues } from "../shared/errors.js";
import type { AppEnv } from "./env.js";

/**
 * What every hub route file builds on: an `OpenAPIHono<AppEnv>` sub-app whose schema failures are the
 * hub's 400 `invalid_request` problem with its `issues`, and the helpers that describe a route's
 * bodies and problems in the OpenAPI document. Route files import this, never hub/app.ts.
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
