import { createEnvironmentsHost } from "../../environments/host.js";
import { setMcpClient } from "../../environments/kit/mcp/handler.js";
import { EdgegymError, Problem } from "../../shared/errors.js";
import { Manifest } from "../../shared/protocol.js";
import type { Result } from "../../shared/result.js";
import { allowsPrivateUpstreams, checkEndpoint } from "../endpoint-policy.js";
import { type HubBindings, positiveNumber } from "../env.js";
import { callHosted, type HostedRef } from "../hosted/loader.js";
import { HOP_HEADER } from "../loop-guard.js";
import { readWithin, UPSTREAM_MAX_BYTES } from "./upstream-body.js";

/**
 * Where a version's edgegym/v1 surface lives: a built-in served in-process, an external URL, or a
 * pushed bundle the hub runs in a sandboxed isolate of its own (hub/hosted/loader.ts).
 */
export type Upstream =
  | { kind: "builtin"; name: string }
  | { kind: "endpoint"; url: string }
  | ({ kind: "hosted" } & HostedRef);

type Fetcher = (request: Request) => Promise<Response>;

/** Deadline of the manifest fetch at publish, unless `HUB_MANIFEST_TIMEOUT_MS` says otherwise. */
export const MANIFEST_TIMEOUT_MS = 10_000;
/** Added to an env's `stepTimeoutMs` for each gateway call (network and queueing), unless `HUB_UPSTREAM_MARGIN_MS` says otherwise. */
export const UPSTREAM_MARGIN_MS = 5_000;
/** The kit's default `stepTimeoutMs`, for versions whose stored manifest lacks one. */
const DEFAULT_STEP_TIMEOUT_MS = 10_000;

let host: ReturnType<typeof createEnvironmentsHost> | undefined;

/** The built-in environments, created once per isolate. */
export function builtinHost(): ReturnType<typeof createEnvironmentsHost> {
  host ??= createEnvironmentsHost();
  return host;
}

export function upstreamOf(row: {
  envId: number;
  version: string;
  endpoint: string | null;
  builtin: string | null;
  bundleHash: string | null;
}): Upstream {
  if (row.builtin) return { kind: "builtin", name: row.builtin };
  if (row.bundleHash) {
    return { kind: "hosted", envId: row.envId, version: row.version, bundleHash: row.bundleHash };
  }
  return { kind: "endpoint", url: row.endpoint ?? "" };
}

/** How long the manifest fetch at publish may take. */
export function manifestDeadline(bindings: Record<string, unknown>): number {
  return positiveNumber(bindings.HUB_MANIFEST_TIMEOUT_MS, MANIFEST_TIMEOUT_MS);
}

/** How long one gateway (or evaluation) call may take: the env's own step limit plus a margin. */
export function stepDeadline(
  stepTimeoutMs: number | null | undefined,
  bindings: Record<string, unknown>,
): number {
  const step =
    typeof stepTimeoutMs === "number" && stepTimeoutMs > 0 ? stepTimeoutMs : DEFAULT_STEP_TIMEOUT_MS;
  return step + positiveNumber(bindings.HUB_UPSTREAM_MARGIN_MS, UPSTREAM_MARGIN_MS);
}

/** The hub's cap on one env response's bytes (`HUB_UPSTREAM_MAX_BYTES`, default `UPSTREAM_MAX_BYTES`). */
export function upstreamMaxBytes(bindings: Record<string, unknown>): number {
  return positiveNumber(bindings.HUB_UPSTREAM_MAX_BYTES, UPSTREAM_MAX_BYTES);
}

/**
 * Sends `init` to `<base>/v1/<path>` and returns the env's answer with its whole body read. Built-ins
 * run in-process with the hub's own bindings (which hold their secrets; the kit bounds their steps).
 * External endpoints go through `fetcher` with the hop header, without following redirects (a
 * redirect could lead to an address the endpoint check refuses), and only when the endpoint check
 * passes. Hosted versions go to their isolate, with the same deadline and size cap. `mcpClient`
 * names the caller to a built-in's or hosted env's MCP session bounds. Either way `timeoutMs` covers the answer and
 * its body (`readWithin`). Errors never name the
 * endpoint: readers of a shared env reach it through the gateway and must not learn where it is.
 */
export async function callUpstream(
  upstream: Upstream,
  path: string,
  init: RequestInit,
  bindings: Record<string, unknown>,
  fetcher: Fetcher,
  timeoutMs: number,
  mcpClient?: string,
): Promise<Response> {
  // `path` is an edgegym/v1 operation, or `mcp` (with its query) for the env's MCP endpoint at `<base>/mcp`.
  const rel = /^mcp(\?|$)/.test(path) ? path : `v1/${path}`;
  const signal = AbortSignal.timeout(timeoutMs);
  let request: Request;
  let send: (r: Request) => Response | Promise<Response>;
  if (upstream.kind === "builtin") {
    request = new Request(`http://builtin/envs/${upstream.name}/${rel}`, { ...init, signal });
    // In-process, the kit's MCP bounds sessions per client by this key (an endpoint sees the hub's address).
    if (mcpClient !== undefined) setMcpClient(request, mcpClient);
    send = (r) => builtinHost().fetch(r, bindings);
  } else if (upstream.kind === "hosted") {
    // The isolate has no network and answers only the hub; the race below is its deadline. Every
    // request comes from the hub, so the kit's MCP bounds count sessions by the caller's key here.
    const headers = new Headers(init.headers);
    if (mcpClient !== undefined) headers.set("cf-connecting-ip", mcpClient);
    request = new Request(`http://hosted/${rel}`, { ...init, headers });
    send = (r) => callHosted(upstream, bindings as HubBindings, r);
  } else {
    const verdict = checkEndpoint(upstream.url, { allowPrivate: allowsPrivateUpstreams(bindings) });
    if (!verdict.ok) {
      throw new EdgegymError(
        "upstream_unreachable",
        `this hub does not fetch the environment's endpoint: ${verdict.reason}`,
      );
    }
    const headers = new Headers(init.headers);
    headers.set(HOP_HEADER, "1");
    request = new Request(`${upstream.url.replace(/\/+$/, "")}/${rel}`, {
      ...init,
      headers,
      signal,
      redirect: "manual",
    });
    send = fetcher;
  }
  const late = () =>
    new EdgegymError("upstream_timeout", `the environment did not answer within ${timeoutMs} ms`);
  // The race bounds a fetcher (or a built-in) that ignores the signal, and every read of the body.
  let onAbort = () => {};
  const timedOut = new Promise<never>((_, reject) => {
    onAbort = () => reject(late());
    signal.addEventListener("abort", onAbort, { once: true });
  });
  timedOut.catch(() => {});
  try {
    let res: Response;
    try {
      res = await Promise.race([send(request), timedOut]);
    } catch (e) {
      if (e instanceof EdgegymError) throw e;
      if (signal.aborted) throw late();
      throw new EdgegymError("upstream_unreachable", "could not reach the environment's endpoint");
    }
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      throw new EdgegymError(
        "upstream_unreachable",
        `the environment answered with a redirect (HTTP ${res.status}), which the hub does not follow`,
      );
    }
    return await readWithin(res, timedOut, upstreamMaxBytes(bindings)).catch((e: unknown) => {
      // Node's fetch errors the body stream itself when the signal fires, before the race sees it.
      if (signal.aborted && !(e instanceof EdgegymError && e.code === "upstream_bad_response")) throw late();
      throw e;
    });
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/** Fetches and validates `B/v1/manifest` within `timeoutMs`; the error says exactly what was wrong. */
export async function fetchManifest(
  upstream: Upstream,
  bindings: Record<string, unknown>,
  fetcher: Fetcher,
  timeoutMs: number,
): Promise<Result<Manifest, EdgegymError>> {
  let res: Response;
  try {
    res = await callUpstream(upstream, "manifest", { method: "GET" }, bindings, fetcher, timeoutMs);
  } catch (e) {
    return { ok: false, error: e as EdgegymError };
  }
  // callUpstream has read the body within the deadline: parsing it cannot stall.
  const json: unknown = await res.json().catch(() => undefined);
  if (res.status !== 200) {
    // The endpoint is a hub's gateway (maybe this one's): publishing it would make a forwarding loop.
    if (Problem.safeParse(json).data?.code === "loop_detected") {
      return {
        ok: false,
        error: new EdgegymError("loop_detected", "the endpoint forwards to an edgegym hub's gateway"),
      };
    }
    return { ok: false, error: new EdgegymError("bad_manifest", `GET manifest returned HTTP ${res.status}`) };
  }
  if (json === undefined) {
    return { ok: false, error: new EdgegymError("bad_manifest", "the manifest is not JSON") };
  }
  const parsed = Manifest.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({
      path: i.path.map(String).join("."),
      message: i.message,
    }));
    return {
      ok: false,
      error: new EdgegymError("bad_manifest", "the manifest does not follow edgegym/v1", { issues }),
    };
  }
  return { ok: true, value: parsed.data };
}

/** An env's error reply as an EdgegymError with the env's own code, so the caller sees the real cause. */
export async function upstreamError(res: Response): Promise<EdgegymError> {
  const parsed = Problem.safeParse(await res.json().catch(() => null));
  if (!parsed.success)
    return new EdgegymError("upstream_unreachable", `the environment answered HTTP ${res.status}`);
  const { code, detail, issues } = parsed.data;
  return new EdgegymError(code, detail, issues ? { issues } : {});
}
