import type { Result } from "../../shared/result.js";
import { allowsPrivateUpstreams, checkEndpoint } from "../endpoint-policy.js";
import type { HubBindings } from "../env.js";
import { HOP_HEADER } from "../loop-guard.js";

/**
 * The outbound gate of hosted environments: a hub entrypoint (exported by hub/worker.ts, reached
 * through `ctx.exports`) that a hosted isolate gets as its `globalOutbound` when its bundle declares
 * hosts. Every `fetch` the env makes arrives here; only `http(s)` to a declared host that passes the
 * endpoint rules (hub/endpoint-policy.ts) goes out, with the hop header (so a hub's gateway
 * refuses it) and without following redirects (each hop comes back through the gate).
 */
export type GateProps = { hosts: string[] };

/** Why `url` may not leave the sandbox, or nothing when it may. */
export function gateVerdict(
  url: string,
  hosts: readonly string[],
  bindings: HubBindings,
): string | undefined {
  const verdict = checkEndpoint(url, { allowPrivate: allowsPrivateUpstreams(bindings) });
  if (!verdict.ok) return verdict.reason;
  const host = verdict.url.hostname.toLowerCase();
  if (!hosts.includes(host))
    return `${host} is not among the hosts the bundle declares (${hosts.join(", ")})`;
  return undefined;
}

export const HostedOutbound = {
  async fetch(request: Request, bindings: HubBindings, ctx: { props?: GateProps }): Promise<Response> {
    const why = gateVerdict(request.url, ctx.props?.hosts ?? [], bindings);
    if (why !== undefined)
      throw new Error(`edgegym: this hosted environment may not fetch ${request.url}: ${why}`);
    const headers = new Headers(request.headers);
    headers.set(HOP_HEADER, "1");
    return fetch(new Request(request, { headers, redirect: "manual" }));
  },
};

/** A declared host as the gate compares it: a host name or IP literal, lowercase, no port or path. */
export function checkOutboundHost(host: string, bindings: HubBindings): Result<string, string> {
  let parsed: URL;
  try {
    parsed = new URL(`https://${host}/`);
  } catch {
    return { ok: false, error: `${host} is not a host name` };
  }
  if (parsed.host !== host.toLowerCase() || parsed.port !== "") {
    return { ok: false, error: `${host} is not a bare host name (no scheme, port, path or credentials)` };
  }
  const verdict = checkEndpoint(parsed.href, { allowPrivate: allowsPrivateUpstreams(bindings) });
  return verdict.ok
    ? { ok: true, value: parsed.hostname }
    : { ok: false, error: `${host}: ${verdict.reason}` };
}

type Gate = (options: { props: GateProps }) => unknown;
let gate: Gate | undefined;

/** Called by the Workers entry with its `ctx.exports`, where the gate's loopback binding lives. */
export function rememberGate(exports: Record<string, unknown> | undefined): void {
  const g = exports?.HostedOutbound;
  if (typeof g === "function") gate = g as Gate;
}

/** The gate for `hosts`, or undefined where this runtime gave the hub no `ctx.exports`. */
export function gateFor(hosts: string[]): unknown {
  return gate?.({ props: { hosts } });
}
