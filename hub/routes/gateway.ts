import { z } from "@hono/zod-openapi";
import { parseWith } from "../../shared/http.js";
import { StepRequest } from "../../shared/protocol.js";
import { Slug } from "../../shared/registry.js";
import { readerTeam } from "../auth/middleware.js";
import { hubDb } from "../db.js";
import { HANDLE_PREFIX } from "../evals/handle.js";
import { evalStep, evalStepContext } from "../evals/step.js";
import { GATEWAY_PATH, gatewayOperation, gatewayRef, OPERATION_NAMES } from "../gateway-path.js";
import { gatewayResponse } from "../gateway-response.js";
import { gatewayTarget } from "../registry/target.js";
import { callUpstream, stepDeadline } from "../registry/upstream.js";
import { problems, routeApp } from "../route-app.js";

const decoder = new TextDecoder();

/**
 * The step request when its session is a hub evaluation handle, else undefined (the body goes to the
 * env as it is). The substring test keeps JSON parsing off the hot path of ordinary steps.
 */
function handleStep(body: ArrayBuffer): StepRequest | undefined {
  const text = decoder.decode(body);
  if (!text.includes(`"${HANDLE_PREFIX}`)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const session = (json as { session?: unknown } | null)?.session;
  return typeof session === "string" && session.startsWith(HANDLE_PREFIX)
    ? parseWith(StepRequest, json)
    : undefined;
}

/**
 * `/v1/envs/{owner}/{name}@{version}/v1/{op}`: checks the caller may read the env, then forwards to the
 * version's endpoint (built-ins in-process). The env's JSON answers, problems included, pass through
 * as data only (`gatewayResponse`: media type checked, headers reduced); the hub adds `x-request-id`.
 */
export const gatewayRoutes = routeApp();
gatewayRoutes.openAPIRegistry.registerPath({
  method: "post",
  path: "/v1/envs/{owner}/{ref}/v1/{op}",
  tags: ["gateway"],
  summary: "Forward an edgegym/v1 call (manifest is GET) to `owner/name@version` (`@latest` resolves)",
  request: {
    params: z.object({
      owner: Slug,
      ref: z.string().openapi({ example: "calculator@latest" }),
      op: z.enum(OPERATION_NAMES),
    }),
  },
  responses: {
    200: { description: "the environment's JSON response, as data (see docs/hub.md)" },
    ...problems(401, 404, 429, 502, 504, 508),
  },
});

gatewayRoutes.on(["GET", "POST"], GATEWAY_PATH, async (c) => {
  const { fetch, now } = c.var;
  const { owner, name, version } = gatewayRef(c.req.method, c.req.path, c.req.param());
  const op = gatewayOperation(c.req.method, c.req.path, c.req.param("op"));
  const team = readerTeam(c.get("principal"));
  // The limiter and the lookup overlap: one round trip fewer on the hot path of every step.
  const [, target] = await Promise.all([
    c.var.limit(),
    gatewayTarget(hubDb(c.env), team, owner, name, version, now()),
  ]);
  const requestId = c.get("requestId");
  const body = c.req.method === "POST" ? await c.req.arrayBuffer() : undefined;
  const init: RequestInit = {
    method: c.req.method,
    headers: { "content-type": "application/json", "x-request-id": requestId },
    ...(body ? { body } : {}),
  };
  // A hub evaluation handle is stepped by the hub itself, once per step (see hub/evals/step.ts).
  const handled = op === "step" && body ? handleStep(body) : undefined;
  const res = handled
    ? await evalStep(evalStepContext(c), handled)
    : await callUpstream(target.upstream, op, init, c.env, fetch, stepDeadline(target.stepTimeoutMs, c.env));
  return gatewayResponse(res, {
    mcp: false,
    headers: { "x-request-id": requestId, "x-edgegym-version": target.version },
  });
});
