import { z } from "zod";

/**
 * Every stable error code of edgegym, protocol and hub alike. Clients branch on `code`, never on the
 * human-readable title or detail.
 */
export const errorCodes = [
  "invalid_json",
  "invalid_request",
  "body_too_large",
  "bad_request",
  "headers_too_large",
  "request_timeout",
  "action_too_large",
  "invalid_session",
  "session_expired",
  "episode_done",
  "unknown_split",
  "task_out_of_range",
  "dataset_not_imported",
  "expert_forbidden",
  "rate_limited",
  "at_capacity",
  "step_timeout",
  "unauthorized",
  "forbidden",
  "not_found",
  "conflict",
  "bad_manifest",
  "invalid_receipt",
  "upstream_unreachable",
  "upstream_timeout",
  "upstream_bad_response",
  "loop_detected",
  "bundle_invalid",
  "bundle_too_large",
  "env_failed_to_start",
  "env_cpu_exceeded",
  "unsupported_media_type",
  "not_configured",
  "internal",
] as const;

export const ErrorCode = z.enum(errorCodes);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** HTTP status for each code: exhaustive, so adding a code without a status fails to compile. */
export const errorStatus: Record<ErrorCode, number> = {
  invalid_json: 400,
  invalid_request: 422,
  body_too_large: 413,
  bad_request: 400,
  headers_too_large: 431,
  request_timeout: 408,
  action_too_large: 413,
  invalid_session: 401,
  session_expired: 410,
  episode_done: 409,
  unknown_split: 404,
  task_out_of_range: 404,
  dataset_not_imported: 404,
  expert_forbidden: 403,
  rate_limited: 429,
  at_capacity: 503,
  step_timeout: 504,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  bad_manifest: 422,
  invalid_receipt: 422,
  upstream_unreachable: 502,
  upstream_timeout: 504,
  upstream_bad_response: 502,
  loop_detected: 508,
  bundle_invalid: 422,
  bundle_too_large: 413,
  env_failed_to_start: 502,
  env_cpu_exceeded: 502,
  unsupported_media_type: 415,
  not_configured: 500,
  internal: 500,
};

const titles: Record<ErrorCode, string> = {
  invalid_json: "Request body is not valid JSON",
  invalid_request: "Request does not match the schema",
  body_too_large: "Request body is too large",
  bad_request: "Request is not well-formed HTTP",
  headers_too_large: "Request line or headers are too large",
  request_timeout: "Request was not received in time",
  action_too_large: "Action is longer than the environment allows",
  invalid_session: "Session token is invalid",
  session_expired: "Session token has expired",
  episode_done: "Episode is already finished",
  unknown_split: "Unknown split",
  task_out_of_range: "Task index is out of range",
  dataset_not_imported: "Dataset has not been imported",
  expert_forbidden: "The expert is not available for this split",
  rate_limited: "Too many requests",
  at_capacity: "The server holds as many sessions as it may",
  step_timeout: "Step took longer than the environment allows",
  unauthorized: "Authentication required",
  forbidden: "Not allowed",
  not_found: "Not found",
  conflict: "Conflict",
  bad_manifest: "Environment manifest is invalid",
  invalid_receipt: "Episode receipt is not acceptable",
  upstream_unreachable: "Upstream environment is unreachable",
  upstream_timeout: "Upstream environment did not answer in time",
  upstream_bad_response: "Upstream environment sent a response the hub does not pass on",
  loop_detected: "The request would loop back through an edgegym hub",
  bundle_invalid: "The pushed bundle is not one the hub runs",
  bundle_too_large: "The pushed bundle is over the hub's size limits",
  env_failed_to_start: "The hosted environment's code failed to start",
  env_cpu_exceeded: "The hosted environment ran past its CPU budget",
  unsupported_media_type: "Request body must be application/json",
  not_configured: "Server is not configured",
  internal: "Internal error",
};

/** RFC 9457 problem details, as sent on the wire with `application/problem+json`. */
export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    code: ErrorCode,
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    retryAfter: z.number().optional(),
    requestId: z.string().optional(),
  })
  .loose();
export type Problem = z.infer<typeof Problem>;

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** The single error class: thrown at the edges, turned into problem+json by each app's onError. */
export class EdgegymError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extra: Partial<Problem>;

  constructor(code: ErrorCode, detail?: string, extra: Partial<Problem> = {}) {
    super(detail ?? titles[code]);
    this.name = "EdgegymError";
    this.code = code;
    this.status = errorStatus[code];
    this.extra = extra;
  }

  toProblem(): Problem {
    return problem(this.code, this.message, this.extra);
  }
}

export function problem(code: ErrorCode, detail?: string, extra: Partial<Problem> = {}): Problem {
  return {
    type: `https://edgegym.dev/problems/${code.replaceAll("_", "-")}`,
    title: titles[code],
    status: errorStatus[code],
    ...(detail === undefined ? {} : { detail }),
    ...extra,
    code,
  };
}

/** Turns zod issues into the flat `issues` list of an `invalid_request` problem. */
export function zodIssues(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message }));
}

/** Any thrown value as a problem. Unknown errors become `internal` with no stack or message leaked. */
export function toProblem(err: unknown): Problem {
  if (err instanceof EdgegymError) return err.toProblem();
  return problem("internal");
}
