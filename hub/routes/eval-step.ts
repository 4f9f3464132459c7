import { createRoute } from "@hono/zod-openapi";
import { RunId } from "../../shared/evals.js";
import { readBody } from "../../shared/http.js";
import { StepRequest, StepResult } from "../../shared/protocol.js";
import { evalStep, evalStepContext } from "../evals/step.js";
import { requireJson } from "../media-type.js";
import { body, json, problems, routeApp } from "../route-app.js";

const step = createRoute({
  method: "post",
  path: "/v1/evals/{id}/step",
  tags: ["evals"],
  summary: "Step a hub-issued evaluation session (each step of an episode can be taken once)",
  request: { params: RunId, ...body(StepRequest) },
  responses: {
    200: json(StepResult, "the env's step result; `session` is the handle of the next step"),
    ...problems(401, 403, 404, 409, 410, 415, 422, 502, 504),
  },
});

/**
 * `POST /v1/evals/{id}/step`, also reachable as `/v1/evals/{id}/v1/step` so that an edgegym/v1 client
 * with base URL `<hub>/v1/evals/{id}` steps evaluation sessions unchanged.
 */
export const evalStepRoutes = routeApp();
evalStepRoutes.openAPIRegistry.registerPath(step);
for (const path of ["/v1/evals/:id/step", "/v1/evals/:id/v1/step"]) {
  // Two paths, one entry in the document: the handler reads and checks its own body.
  evalStepRoutes.post(path, async (c) => {
    requireJson(c.req.raw);
    return evalStep(evalStepContext(c), await readBody(c.req.raw, StepRequest), c.req.param("id"));
  });
}
