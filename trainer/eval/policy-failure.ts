import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import type { InfraFailure } from "../client/env-client.js";
import type { Trajectory } from "../rollout/types.js";

/** Details of policy-server failures start with this, so a report can tell them from env failures. */
export const POLICY = "policy";

const excerpt = (text: string, max = 200) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** The first `code` in an error's cause chain (`ECONNREFUSED`, `ENOTFOUND`, …). */
function causeCode(e: unknown): string | undefined {
  for (let c: unknown = e, depth = 0; c !== undefined && c !== null && depth < 5; depth++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z]+/.test(code)) return code;
    c = (c as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * A failed chat-completion call as an infrastructure failure whose kind says what went wrong: a
 * timeout, a connection that failed (refused, unknown host), an HTTP status with an excerpt of the
 * server's body, or a URL the client could not use.
 */
export function policyFailure(e: unknown, baseURL: string, timeoutMs: number): InfraFailure {
  if (e instanceof APIConnectionTimeoutError)
    return {
      kind: "timeout",
      detail: `${POLICY}: no answer from ${baseURL} within ${timeoutMs} ms`,
      attempts: 1,
    };
  if (e instanceof APIConnectionError) {
    const code = causeCode(e);
    const what = code === "ECONNREFUSED" ? "connection refused" : `connection failed (${code ?? e.message})`;
    return {
      kind: "network",
      ...(code ? { code } : {}),
      detail: `${POLICY}: ${what} at ${baseURL}`,
      attempts: 1,
    };
  }
  if (e instanceof APIError && typeof e.status === "number") {
    const body = e.error === undefined ? e.message : JSON.stringify(e.error);
    // The server's error code (`template_error`, `context_length_exceeded`, ...) names the failure.
    const code = typeof e.code === "string" && e.code !== "" ? e.code : undefined;
    return {
      kind: e.status >= 500 ? "server_error" : e.status === 429 ? "rate_limited" : "rejected",
      status: e.status,
      ...(code ? { code } : {}),
      detail: `${POLICY}: HTTP ${e.status} from ${baseURL}: ${excerpt(body)}`,
      attempts: 1,
    };
  }
  const message = e instanceof Error ? e.message : String(e);
  if (e instanceof TypeError && /url/i.test(message))
    return {
      kind: "bad_response",
      code: "bad_url",
      detail: `${POLICY}: bad URL ${baseURL}: ${message}`,
      attempts: 1,
    };
  return { kind: "network", detail: `${POLICY}: ${excerpt(message)}`, attempts: 1 };
}

/** What kind of failure this is, as a report groups them: who failed, and how. */
export function failureKind(f: InfraFailure): string {
  const who = f.detail.startsWith(`${POLICY}:`) ? "policy" : "env";
  if (f.code === "bad_url") return `${who} bad URL`;
  if (f.kind === "timeout") return `${who} timeout`;
  if (f.code === "ECONNREFUSED") return `${who} connection refused`;
  if (f.status !== undefined) return `${who} HTTP ${f.status}${f.code ? ` ${f.code}` : ""}`;
  return `${who} ${f.kind}`;
}

/**
 * The infrastructure failures of a run, one line per kind with its count and its first error, so a
 * server that is down or a wrong URL is named instead of showing up as a table of zeros.
 */
export function failureLines(trajectories: readonly Trajectory[]): string[] {
  const kinds = new Map<string, { count: number; first: InfraFailure }>();
  for (const t of [...trajectories].sort((a, b) => a.episode - b.episode)) {
    if (t.failure === undefined) continue;
    const kind = failureKind(t.failure);
    const seen = kinds.get(kind);
    if (seen) seen.count++;
    else kinds.set(kind, { count: 1, first: t.failure });
  }
  return [...kinds].map(([kind, { count, first }]) => `${kind} ×${count}, first: ${first.detail}`);
}
