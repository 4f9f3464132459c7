import { NAME_AT_VERSION_ROUTE, parseNameAtVersion } from "../shared/env-ref.js";
import { EdgegymError } from "../shared/errors.js";

/**
 * The gateway's paths, `/v1/envs/{owner}/{name}@{version}/…`, written once: the edgegym/v1 routes
 * (hub/routes/gateway.ts), the MCP route (hub/routes/gateway-mcp.ts) and the rate limiter, which must
 * know the edgegym/v1 ones because they check the limit themselves.
 */

/** The path up to the env's own path, as a Hono route pattern. */
export const GATEWAY_PREFIX = `/v1/envs/:owner/:ref{${NAME_AT_VERSION_ROUTE}}`;

/** The edgegym/v1 operations the gateway forwards, with their methods. */
export const OPERATIONS = {
  manifest: "GET",
  sessions: "POST",
  step: "POST",
  "step:batch": "POST",
  expert: "POST",
} as const;
export type Operation = keyof typeof OPERATIONS;
export const OPERATION_NAMES = Object.keys(OPERATIONS) as [Operation, ...Operation[]];

/** Hono's `:op{…}` pattern; unknown operations that match it are refused by `gatewayOperation`. */
const OPERATION_ROUTE = "[a-z:]+";
export const GATEWAY_PATH = `${GATEWAY_PREFIX}/v1/:op{${OPERATION_ROUTE}}`;
export const GATEWAY_MCP_PATH = `${GATEWAY_PREFIX}/mcp`;

const EDGEGYM_V1 = new RegExp(`^/v1/envs/[^/]+/${NAME_AT_VERSION_ROUTE}/v1/`);

/** Gateway calls do their own rate limiting, overlapped with the env lookup. */
export function isGatewayPath(path: string): boolean {
  return EDGEGYM_V1.test(path);
}

const notFound = (method: string, path: string) =>
  new EdgegymError("not_found", `no route ${method} ${path}`);

/** The env a gateway path names, or 404 when its name or version is not of the right shape. */
export function gatewayRef(
  method: string,
  path: string,
  params: { owner?: string; ref?: string },
): { owner: string; name: string; version: string } {
  const ref = parseNameAtVersion(params.ref ?? "");
  if (!ref || !params.owner) throw notFound(method, path);
  return { owner: params.owner, ...ref };
}

/** The edgegym/v1 operation of a gateway path, or 404 for an unknown one or the wrong method. */
export function gatewayOperation(method: string, path: string, op: string | undefined): Operation {
  // Own keys only: `constructor` matches the route's `[a-z:]+` and is on every object's prototype.
  if (op === undefined || !Object.hasOwn(OPERATIONS, op) || OPERATIONS[op as Operation] !== method) {
    throw notFound(method, path);
  }
  return op as Operation;
}
