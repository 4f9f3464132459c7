import { z } from "@hono/zod-openapi";
import { EdgegymError } from "../../shared/errors.js";
import { parseWith } from "../../shared/http.js";
import { StepRequest } from "../../shared/protocol.js";
import type { HubApp, RouteDeps } from "../app.js";
import { readerTeam } from "../auth/middleware.js";
import { hubDb } from "../db.js";
import { HANDLE_PREFIX } from "../evals/handle.js";
import { evalStep } from "../evals/step.js";
import { gatewayTarget } from "../registry/target.js";
import { callUpstream, stepDeadline } from "../registry/upstream.js";
import { parseRef } from "../registry/versions.js";
import { problems, Slug } from "../schemas.js";
import { evalStepContext } from "./eval-step.js";
import { registerGatewayMcpRoute } from "./gateway-mcp.js";

/** The edgegym/v1 operations the gateway forwards, with their methods. */
const OPERATIONS: Record<string, string> = {
  manifest: "GET",
  sessions: "POST",
  step: "POST",
  "step:batch": "POST",
  expert: "POST",
};

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

const PATH = "/v1/envs/:owner/:ref{[a-z0-9-]+@[0-9A-Za-z.+-]+}/v1/:op{[a-z:]+}";

/** Gateway calls do their own rate limiting, overlapped with the env lookup. */
export function isGatewayPath(path: string): boolean {
  return /^\/v1\/envs\/[^/]+\/[^/]+@[^/]+\/v1\//.test(path);
}

/**
 * `/v1/envs/{owner}/{name}@{version}/v1/{op}`: checks the caller may read the env, then forwards to the
 * version's endpoint (built-ins in-process). The env's responses, problems included, pass through
 * unchanged; the hub adds `x-request-id`.
 */
export function registerGatewayRoutes(app: HubApp, deps: RouteDeps): void {
  const { fetch, now } = deps;
  app.openAPIRegistry.registerPath({
    method: "post",
    path: "/v1/envs/{owner}/{ref}/v1/{op}",
    tags: ["gateway"],
    summary: "Forward an edgegym/v1 call (manifest is GET) to `owner/name@version` (`@latest` resolves)",
    request: {
      params: z.object({
        owner: Slug,
        ref: z.string().openapi({ example: "calculator@latest" }),
        op: z.enum(["manifest", "sessions", "step", "step:batch", "expert"]),
      }),
    },
    responses: {
      200: { description: "the environment's response, unchanged" },
      ...problems(401, 404, 429, 502, 504, 508),
    },
  });

  app.on(["GET", "POST"], PATH, async (c) => {
    const owner = c.req.param("owner");
    const ref = parseRef(c.req.param("ref"));
    const op = c.req.param("op");
    if (!ref || !owner || !op) throw new EdgegymError("not_found", `no route ${c.req.method} ${c.req.path}`);
    // Own keys only: `constructor` matches the route's `[a-z:]+` and is on every object's prototype.
    if (!Object.hasOwn(OPERATIONS, op) || OPERATIONS[op] !== c.req.method) {
      throw new EdgegymError("not_found", `no route ${c.req.method} ${c.req.path}`);
    }
    const team = readerTeam(c.get("principal"));
    // The limiter and the lookup overlap: one round trip fewer on the hot path of every step.
    const [, target] = await Promise.all([
      deps.limit(c),
      gatewayTarget(hubDb(c.env), team, owner, ref.name, ref.version, now()),
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
      ? await evalStep(evalStepContext(c, deps), handled)
      : await callUpstream(
          target.upstream,
          op,
          init,
          c.env,
          fetch,
          stepDeadline(target.stepTimeoutMs, c.env),
        );
    const headers = new Headers(res.headers);
    headers.set("x-request-id", requestId);
    headers.set("x-edgegym-version", target.version);
    return new Response(res.body, { status: res.status, headers });
  });
  registerGatewayMcpRoute(app, deps);
}
