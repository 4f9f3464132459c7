import type { Context } from "hono";
import { hostUpgrade } from "../../environments/kit/openenv/socket.js";
import { DEFAULT_SOCKET_LIMITS, episodeSocket } from "../../environments/kit/openenv/socket-session.js";
import { EdgegymError } from "../../shared/errors.js";
import { readerTeam } from "../auth/middleware.js";
import { hubDb } from "../db.js";
import type { AppEnv } from "../env.js";
import { GATEWAY_PREFIX, gatewayRef } from "../gateway-path.js";
import { gatewayResponse } from "../gateway-response.js";
import { relayAnswerer } from "../openenv-relay.js";
import { callerKey } from "../rate-limit.js";
import { gatewayTarget } from "../registry/target.js";
import { callUpstream, stepDeadline } from "../registry/upstream.js";
import { routeApp } from "../route-app.js";

/** Open gateway sockets one caller may hold per isolate, unless `HUB_MAX_SOCKETS_PER_CALLER` says otherwise. */
export const MAX_SOCKETS_PER_CALLER = 64;

/** OpenEnv's HTTP routes, forwarded as they are: the env answers them (`environments/kit/openenv`). */
const FORWARDED = {
  health: "GET",
  metadata: "GET",
  schema: "GET",
  num_tasks: "GET",
  state: "GET",
  reset: "POST",
  step: "POST",
  "openenv/mcp": "POST",
  list_environments: "GET",
} as const;

/** The per-env part of OpenReward's task listing (`/<env>/splits`, …), forwarded as the rest. */
const LISTING = { splits: "GET", tools: "GET", num_tasks: "POST", task: "POST", task_range: "POST" } as const;

/** Sockets open per caller in this isolate. */
const open = new Map<string, number>();

/**
 * OpenEnv's protocol through the gateway, `/v1/envs/{owner}/{name}@{version}/…`: its HTTP routes
 * forwarded with the edgegym/v1 gateway's access check, deadline and rate limit, and `/ws`, where
 * the caller is authenticated and the env looked up at the upgrade, each message is rate-limited and
 * becomes one stateless call to the env (`hub/openenv-relay.ts`), and a caller holds at most
 * `HUB_MAX_SOCKETS_PER_CALLER` sockets at once. The socket is accepted by this invocation (no
 * Durable Object, so nothing to hibernate): the episode's token lives in its closure and goes with it.
 */
export const gatewayOpenEnvRoutes = routeApp();

gatewayOpenEnvRoutes.get(`${GATEWAY_PREFIX}/ws`, async (c) => {
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket")
    throw new EdgegymError("bad_request", "GET /ws opens a WebSocket: send Upgrade: websocket");
  const upgrade = hostUpgrade(c.env as unknown as Record<string, unknown>);
  if (!upgrade) throw new EdgegymError("not_configured", "this hub serves no WebSockets here");
  const { target, requestId } = await lookUp(c);
  const key = callerKey(c);
  const max = Number(c.env.HUB_MAX_SOCKETS_PER_CALLER) || MAX_SOCKETS_PER_CALLER;
  if ((open.get(key) ?? 0) >= max) {
    throw new EdgegymError(
      "rate_limited",
      `this caller holds ${max} gateway sockets already; close one first`,
      {
        retryAfter: 1,
      },
    );
  }
  const deadline = stepDeadline(target.stepTimeoutMs, c.env);
  const call = (path: string, body: unknown) =>
    callUpstream(
      target.upstream,
      `../${path}`,
      {
        method: "POST",
        headers: { "content-type": "application/json", "x-request-id": requestId },
        body: JSON.stringify(body),
      },
      c.env,
      c.var.fetch,
      deadline,
    );
  const { name } = gatewayRef(c.req.method, c.req.path, c.req.param());
  const env = { name, version: target.version };
  const socket = episodeSocket(
    () => relayAnswerer(env, call, c.var.limit),
    DEFAULT_SOCKET_LIMITS,
    () => {
      const n = (open.get(key) ?? 1) - 1;
      if (n <= 0) open.delete(key);
      else open.set(key, n);
    },
  );
  return upgrade(c as unknown as Parameters<typeof upgrade>[0], (peer) => {
    open.set(key, (open.get(key) ?? 0) + 1);
    return socket(peer);
  });
});

// After `/ws`, which the one-segment pattern would also match.
gatewayOpenEnvRoutes.on(
  ["GET", "POST"],
  [
    `${GATEWAY_PREFIX}/:op{[a-z_]+}`,
    `${GATEWAY_PREFIX}/openenv/mcp`,
    `${GATEWAY_PREFIX}/:listed{[a-z0-9][a-z0-9._-]*}/:part{[a-z_]+}`,
  ],
  async (c) => {
    const forwarded = forwardedOp(c.req.path, c.req.param());
    if (forwarded?.method !== c.req.method)
      throw new EdgegymError("not_found", `no route ${c.req.method} ${c.req.path}`);
    const { op } = forwarded;
    const { target, requestId } = await lookUp(c);
    const headers: Record<string, string> = { "content-type": "application/json", "x-request-id": requestId };
    const session = c.req.header("edgegym-session");
    if (op === "state" && session) headers["edgegym-session"] = session;
    const body = c.req.method === "POST" ? await c.req.arrayBuffer() : undefined;
    const res = await callUpstream(
      target.upstream,
      // callUpstream names edgegym/v1 operations under `<base>/v1/`; OpenEnv's routes sit beside it.
      `../${op}${new URL(c.req.url).search}`,
      { method: c.req.method, headers, ...(body ? { body } : {}) },
      c.env,
      c.var.fetch,
      stepDeadline(target.stepTimeoutMs, c.env),
    );
    return gatewayResponse(res, {
      mcp: false,
      headers: { "x-request-id": requestId, "x-edgegym-version": target.version },
    });
  },
);

/** The forwarded route a request names (`op`, as the env serves it) and the method it takes. */
function forwardedOp(
  path: string,
  params: { op?: string; listed?: string; part?: string },
): { op: string; method: string } | undefined {
  if (path.endsWith("/openenv/mcp")) return { op: "openenv/mcp", method: "POST" };
  const { op, listed, part } = params;
  if (listed !== undefined && part !== undefined)
    return Object.hasOwn(LISTING, part)
      ? { op: `${listed}/${part}`, method: LISTING[part as keyof typeof LISTING] }
      : undefined;
  return op !== undefined && Object.hasOwn(FORWARDED, op)
    ? { op, method: FORWARDED[op as keyof typeof FORWARDED] }
    : undefined;
}

/** The caller may read the env: the same check as every gateway call. */
async function lookUp(c: Context<AppEnv>) {
  const { owner, name, version } = gatewayRef(c.req.method, c.req.path, c.req.param());
  const team = readerTeam(c.get("principal"));
  const target = await gatewayTarget(hubDb(c.env), team, owner, name, version, c.var.now());
  return { target, requestId: c.get("requestId") };
}
