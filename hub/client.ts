import type { ClientResponse } from "hono/client";
import { hc } from "hono/client";
import { Problem } from "../shared/errors.js";
import type { HubApi } from "./app.js";

/**
 * The one client of the hub's `/v1` API: Hono's `hc` over the hub app's own type (`HubApi`), so paths,
 * parameters, bodies and replies are checked against the routes themselves. Every call has a deadline,
 * and a refused call becomes a `HubError` whose message is the hub's problem in one line, `issues`
 * included (the CLI prints it; evaluation runs report it).
 */

/** A hub and the bearer token to call it with. */
export type HubTarget = { url: string; token?: string };

/** How long one hub call may take, unless the caller gives another deadline. */
export const HUB_CALL_TIMEOUT_MS = 30_000;

/**
 * A hub error as the CLI shows it: one line with the problem's detail, its code and every entry of its
 * `issues` list (which field, what was wrong). `exitCode` is 2 when the hub refused the request (4xx:
 * the user's input) and 1 when the hub could not be reached or failed.
 */
export class HubError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 2,
    /** The hub's HTTP status, when it answered. */
    readonly status?: number,
    /** The hub's problem, when it sent one. */
    readonly problem?: Problem,
    /** No answer at all (network error or deadline): worth trying again, unlike a refusal. */
    readonly unreachable = false,
  ) {
    super(message);
  }
}

/** `detail (code): path: message; path: message`, the problem+json of a refused request in one line. */
export function problemLine(p: Problem): string {
  const issues = (p.issues ?? []).map((i) => `${i.path === "" ? "(body)" : i.path}: ${i.message}`);
  return `${p.detail ?? p.title} (${p.code})${issues.length > 0 ? `: ${issues.join("; ")}` : ""}`;
}

/** The error for a non-2xx hub reply: its problem when it sent one, else the status and a body excerpt. */
export function hubFailure(status: number, text: string): HubError {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const p = Problem.safeParse(json);
  const line = p.success
    ? problemLine(p.data)
    : `HTTP ${status}${text.trim() ? `: ${text.trim().slice(0, 200)}` : ""}`;
  return new HubError(line, status >= 400 && status < 500 ? 2 : 1, status, p.success ? p.data : undefined);
}

export type HubClient = ReturnType<typeof hc<HubApi>>;

/** The typed client of `hub`, with its bearer token and a deadline of `timeoutMs` on every call. */
export function hubClient(hub: HubTarget, timeoutMs = HUB_CALL_TIMEOUT_MS): HubClient {
  const unreachable = (e: unknown) => {
    const why = e instanceof Error && e.name === "TimeoutError" ? `no answer in ${timeoutMs} ms` : "";
    return new HubError(
      `cannot reach the hub at ${hub.url}${why ? ` (${why})` : ""}`,
      1,
      undefined,
      undefined,
      true,
    );
  };
  const deadlineFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const signal = AbortSignal.timeout(timeoutMs);
    let res: Response;
    try {
      res = await fetch(input, { ...init, signal });
    } catch (e) {
      throw unreachable(e);
    }
    // The deadline covers the body too: it is read here, under the same signal, and errors map alike.
    let body: ArrayBuffer;
    try {
      body = await res.arrayBuffer();
    } catch (e) {
      throw unreachable(e);
    }
    return new Response(res.status === 204 ? null : body, { status: res.status, headers: res.headers });
  };
  return hc<HubApi>(hub.url, {
    fetch: deadlineFetch as typeof fetch,
    headers: hub.token ? { authorization: `Bearer ${hub.token}` } : {},
  });
}

/** The JSON of a successful reply; a refusal throws its `HubError` (see `hubFailure`). */
export async function hubJson<T, U extends number>(call: Promise<ClientResponse<T, U, "json">>): Promise<T> {
  const res = await call;
  const text = await res.text();
  if (!res.ok) throw hubFailure(res.status, text);
  try {
    return (text ? JSON.parse(text) : null) as T;
  } catch {
    throw new HubError(`the hub answered ${new URL(res.url).pathname} with something that is not JSON`, 1);
  }
}

/** A call whose reply has no body (204): only its refusal matters. */
export async function hubDone(call: Promise<ClientResponse<unknown, number, string>>): Promise<void> {
  const res = await call;
  if (!res.ok) throw hubFailure(res.status, await res.text());
}
