import { z } from "@hono/zod-openapi";
import { EdgegymError } from "../../shared/errors.js";
import type { HubApp, RouteDeps } from "../app.js";
import { readerTeam } from "../auth/middleware.js";
import { hubDb } from "../db.js";
import { gatewayTarget } from "../registry/target.js";
import { callUpstream, stepDeadline } from "../registry/upstream.js";
import { parseRef } from "../registry/versions.js";
import { problems, Slug } from "../schemas.js";

const PATH = "/v1/envs/:owner/:ref{[a-z0-9-]+@[0-9A-Za-z.+-]+}/mcp";

/** The request headers of MCP's Streamable HTTP transport that the env must see. */
const FORWARDED = ["content-type", "accept", "mcp-session-id", "mcp-protocol-version", "last-event-id"];

/**
 * `/v1/envs/{owner}/{name}@{version}/mcp`: the env's MCP endpoint through the gateway, with the same
 * access check as the edgegym/v1 operations (and the hub's rate limit, applied to every `/v1` route
 * but the edgegym/v1 gateway paths). The hub keeps no MCP state: the env holds the session, and its
 * `Mcp-Session-Id` passes through both ways, so any hub instance forwards any call.
 */
export function registerGatewayMcpRoute(app: HubApp, deps: RouteDeps): void {
  app.openAPIRegistry.registerPath({
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
      200: { description: "the environment's JSON-RPC response, unchanged, with its Mcp-Session-Id" },
      ...problems(401, 404, 429, 502, 504, 508),
    },
  });

  app.on(["GET", "POST", "DELETE"], PATH, async (c) => {
    const owner = c.req.param("owner");
    const ref = parseRef(c.req.param("ref"));
    if (!ref || !owner) throw new EdgegymError("not_found", `no route ${c.req.method} ${c.req.path}`);
    const team = readerTeam(c.get("principal"));
    const target = await gatewayTarget(hubDb(c.env), team, owner, ref.name, ref.version, deps.now());
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
      deps.fetch,
      stepDeadline(target.stepTimeoutMs, c.env),
    );
    const out = new Headers(res.headers);
    out.set("x-request-id", c.get("requestId"));
    out.set("x-edgegym-version", target.version);
    return new Response(res.body, { status: res.status, headers: out });
  });
}
