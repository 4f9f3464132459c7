import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { readBody } from "../../shared/http.js";
import { StepRequest, StepResult } from "../../shared/protocol.js";
import type { HubApp, RouteDeps } from "../app.js";
import { requireTeam } from "../auth/middleware.js";
import { hubDb } from "../db.js";
import type { AppEnv } from "../env.js";
import { type EvalStepContext, evalStep } from "../evals/step.js";
import { requireJson } from "../media-type.js";
import { body, json, problems } from "../schemas.js";

const step = createRoute({
  method: "post",
  path: "/v1/evals/{id}/step",
  tags: ["evals"],
  summary: "Step a hub-issued evaluation session (each step of an episode can be taken once)",
  request: { params: z.object({ id: z.string().max(64) }), ...body(StepRequest) },
  responses: {
    200: json(StepResult, "the env's step result; `session` is the handle of the next step"),
    ...problems(401, 403, 404, 409, 410, 415, 422, 502, 504),
  },
});

/** What an eval step needs from a request: the caller's team (with `eval`) and the hub's bindings. */
export function evalStepContext(c: Context<AppEnv>, deps: RouteDeps): EvalStepContext {
  const { team } = requireTeam(c.get("principal"), "eval");
  return {
    db: hubDb(c.env),
    bindings: c.env,
    team,
    requestId: c.get("requestId"),
    now: deps.now(),
    fetch: deps.fetch,
  };
}

/**
 * `POST /v1/evals/{id}/step`, also reachable as `/v1/evals/{id}/v1/step` so that an edgegym/v1 client
 * with base URL `<hub>/v1/evals/{id}` steps evaluation sessions unchanged.
 */
export function registerEvalStepRoutes(app: HubApp, deps: RouteDeps): void {
  app.openAPIRegistry.registerPath(step);
  for (const path of ["/v1/evals/:id/step", "/v1/evals/:id/v1/step"]) {
    app.post(path, async (c) => {
      requireJson(c.req.raw);
      return evalStep(evalStepContext(c, deps), await readBody(c.req.raw, StepRequest), c.req.param("id"));
    });
  }
}
