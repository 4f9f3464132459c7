import { z } from "@hono/zod-openapi";
import { Slug } from "../../shared/registry.js";
import { readerTeam } from "../auth/middleware.js";
import { hubDb } from "../db.js";
import { GATEWAY_MCP_PATH, gatewayRef } from "../gateway-path.js";
import { gatewayResponse } from "../gateway-response.js";
import { callerKey } from "../rate-limit.js";
import { gatewayTarget } from "../registry/target.js";
import { callUpstream, stepDeadline } from "../registry/upstream.js";
import { problems, routeApp } from "../route-app.js";

/** The request headers of MCP's Streamable HTTP transport that the env must see. */
const FORWARDED = [
  "content-type",
  "accept",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
  // The 2026-07-28 revision names each request's method and target in headers too, and checks they agree.
  "mcp-method",
  "mcp-name",
];

/**
 * `/v1/envs/{owner}/{name}@{version}/mcp`: the env's MCP endpoint through the gateway, with the same
 * access check as the edgegym/v1 operations (and the hub's rate limit, applied to every `/v1` route
 * but the edgegym/v1 gateway paths). The hub keeps no MCP state: the env holds the session, and its
 * `Mcp-Session-Id` passes through both ways, so any hub instance forwards any call.
 */
export const gatewayMcpRoutes = routeApp();
gatewayMcpRoutes.openAPIRegistry.registerPath({
  method: "post",
  path: "/v1/envs/{owner}/{ref}/mcp",
  tags: ["gateway"],
  summary:
    "The env's MCP server (Streamable HTTP; also DELETE, and GET answers 405): initialize starts an episode (`?split=&index=&seed=`), tools/call is one step",
  request: {
    params: z.object({ owner: Slug, ref: z.string().openapi({ example: "calculator@latest" }) }),
    query: z.object({
      split: z.string().optional(),
      index: z.string().optional(),
      seed: z.string().optional(),
    }),
  },
  responses: {
    200: {
      description: "the environment's JSON-RPC response (JSON or an event stream), with its Mcp-Session-Id",
    },
    ...problems(401, 404, 429, 502, 504, 508),
  },
});

gatewayMcpRoutes.on(["GET", "POST", "DELETE"], GATEWAY_MCP_PATH, async (c) => {
  const { owner, name, version } = gatewayRef(c.req.method, c.req.path, c.req.param());
  const team = readerTeam(c.get("principal"));
  const target = await gatewayTarget(hubDb(c.env), team, owner, name, version, c.var.now());
  const headers: Record<string, string> = { "x-request-id": c.get("requestId") };
  for (const name of FORWARDED) {
    const value = c.req.header(name);
    if (value !== undefined) headers[name] = value;
  }
  const body = c.req.method === "POST" ? await c.req.arrayBuffer() : undefined;
  const res = await callUpstream(
    target.upstream,
    `mcp${new URL(c.req.url).search}`,
    { method: c.req.method, headers, ...(body ? { body } : {}) },
    c.env,
    c.var.fetch,
    stepDeadline(target.stepTimeoutMs, c.env),
    callerKey(c),
  );
  return gatewayResponse(res, {
    mcp: true,
    headers: { "x-request-id": c.get("requestId"), "x-edgegym-version": target.version },
  });
});
