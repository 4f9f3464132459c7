import pLimit from "p-limit";
import type { z } from "zod";
import {
  type Action,
  type ExpertResponse,
  ExpertResponse as ExpertResponseSchema,
  type Manifest,
  Manifest as ManifestSchema,
  type SessionRequest,
  type SessionResponse,
  SessionResponse as SessionResponseSchema,
  type StepResult,
  StepResult as StepResultSchema,
} from "../../shared/protocol.js";
import { err, ok, type Result } from "../../shared/result.js";
import {
  type AttemptOutcome,
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
  type RetryPolicy,
  retrying,
} from "./retry.js";
import type { Transport, TransportResponse } from "./transport.js";

/** Why a request failed for good. Retryable kinds only end up here after every retry failed. */
export type FailureKind =
  | "network"
  | "timeout"
  | "rate_limited"
  | "server_error"
  | "rejected"
  | "bad_response";

export type InfraFailure = {
  kind: FailureKind;
  /** The problem+json `code` or the HTTP status, when the server answered. */
  code?: string;
  status?: number;
  detail: string;
  attempts: number;
};

export type EnvClientOptions = {
  /** Most requests in flight at once from this client. */
  concurrency: number;
  /** Deadline of one attempt (a hung step is abandoned and retried after it). */
  stepDeadlineMs: number;
  retry: RetryPolicy;
  /** Jitter source; tests fix it. */
  random?: () => number;
};

export const DEFAULT_ENV_CLIENT_OPTIONS: EnvClientOptions = {
  concurrency: 64,
  stepDeadlineMs: 30_000,
  retry: DEFAULT_RETRY_POLICY,
};

/** Counters the run reports: attempts retried by cause and requests that failed for good by kind. */
export type ClientStats = {
  requests: number;
  retries: Record<"network" | "timeout" | "rate_limited" | "server_error", number>;
  failures: Record<FailureKind, number>;
};

/** Failures worth another try: the request may succeed later. */
export const RETRYABLE = new Set<FailureKind>(["network", "timeout", "rate_limited", "server_error"]);

/**
 * The edgegym/v1 client the rollouts use. Every call returns a Result: infrastructure trouble is a
 * value, never an exception, so one bad episode cannot stop a run. Retrying a step is safe because a
 * step on a given session token is deterministic.
 */
export class EnvClient {
  readonly stats: ClientStats = {
    requests: 0,
    retries: { network: 0, timeout: 0, rate_limited: 0, server_error: 0 },
    failures: { network: 0, timeout: 0, rate_limited: 0, server_error: 0, rejected: 0, bad_response: 0 },
  };
  private readonly limit: ReturnType<typeof pLimit>;
  private readonly options: EnvClientOptions;

  constructor(
    readonly transport: Transport,
    options: Partial<EnvClientOptions> = {},
  ) {
    this.options = { ...DEFAULT_ENV_CLIENT_OPTIONS, ...options };
    this.limit = pLimit(this.options.concurrency);
  }

  manifest(): Promise<Result<Manifest, InfraFailure>> {
    return this.call("GET", "/v1/manifest", undefined, ManifestSchema);
  }

  reset(req: SessionRequest): Promise<Result<SessionResponse, InfraFailure>> {
    return this.call("POST", "/v1/sessions", req, SessionResponseSchema);
  }

  step(session: string, action: Action): Promise<Result<StepResult, InfraFailure>> {
    return this.call("POST", "/v1/step", { session, action }, StepResultSchema);
  }

  expert(session: string): Promise<Result<ExpertResponse, InfraFailure>> {
    return this.call("POST", "/v1/expert", { session }, ExpertResponseSchema);
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  private async call<T>(
    method: "GET" | "POST",
    path: string,
    body: unknown,
    schema: z.ZodType<T>,
  ): Promise<Result<T, InfraFailure>> {
    const { retry, stepDeadlineMs } = this.options;
    const result = await retrying(
      () => {
        this.stats.requests++;
        return this.limit(() => this.attempt(method, path, body, schema, stepDeadlineMs));
      },
      {
        policy: retry,
        retryable: (f) => RETRYABLE.has(f.kind),
        onRetry: (f) => this.stats.retries[f.kind as keyof ClientStats["retries"]]++,
        ...(this.options.random ? { random: this.options.random } : {}),
      },
    );
    if (!result.ok) this.stats.failures[result.error.kind]++;
    return result;
  }

  private async attempt<T>(
    method: "GET" | "POST",
    path: string,
    body: unknown,
    schema: z.ZodType<T>,
    deadlineMs: number,
  ): Promise<AttemptOutcome<T, Omit<InfraFailure, "attempts">>> {
    let res: TransportResponse;
    try {
      res = await this.transport.request(method, path, body, AbortSignal.timeout(deadlineMs));
    } catch (e) {
      const timeout = e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError");
      const detail = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      return err({ failure: { kind: timeout ? "timeout" : "network", detail } });
    }
    if (res.status >= 200 && res.status < 300) {
      const parsed = safeJson(res.body);
      const checked = schema.safeParse(parsed);
      if (checked.success) return ok(checked.data);
      return err({
        failure: { kind: "bad_response", status: res.status, detail: `${path}: unexpected body` },
      });
    }
    const problem = safeJson(res.body) as { code?: unknown; detail?: unknown } | undefined;
    const code = typeof problem?.code === "string" ? problem.code : undefined;
    const detail = typeof problem?.detail === "string" ? problem.detail : `HTTP ${res.status}`;
    const base = { status: res.status, detail, ...(code === undefined ? {} : { code }) };
    const retryAfterMs = res.status === 429 ? parseRetryAfter(res.headers["retry-after"]) : undefined;
    return err({
      failure: { kind: refusalKind(res.status), ...base },
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }
}

/** What a non-2xx status means for retrying: 429 waits, 5xx may pass later, any other refusal is final. */
export function refusalKind(status: number): "rate_limited" | "server_error" | "rejected" {
  return status === 429 ? "rate_limited" : status >= 500 ? "server_error" : "rejected";
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
