import type { z } from "zod";
import { EdgegymError, type ErrorCode, type Problem, toProblem, zodIssues } from "../../../shared/errors.js";
import type { OpenEnvErrorCode } from "../../../shared/openenv.js";

/** An OpenEnv `error` reply's `data`: its code and message, with edgegym's problem for the detail. */
export type OpenEnvErrorData = {
  message: string;
  code: OpenEnvErrorCode;
  problem?: Problem;
  errors?: { path: string; message: string }[];
};

/** Which OpenEnv code each edgegym problem is: the request was wrong, the episode was, or the server failed. */
const CODE_OF: Partial<Record<ErrorCode, OpenEnvErrorCode>> = {
  invalid_json: "INVALID_JSON",
  invalid_request: "VALIDATION_ERROR",
  body_too_large: "VALIDATION_ERROR",
  action_too_large: "VALIDATION_ERROR",
  unknown_split: "VALIDATION_ERROR",
  task_out_of_range: "VALIDATION_ERROR",
  dataset_not_imported: "VALIDATION_ERROR",
  expert_forbidden: "VALIDATION_ERROR",
  invalid_session: "SESSION_ERROR",
  session_expired: "SESSION_ERROR",
  episode_done: "SESSION_ERROR",
  rate_limited: "CAPACITY_REACHED",
  not_configured: "FACTORY_ERROR",
};

/** Any thrown value as OpenEnv error data; unknown errors say nothing beyond `internal`. */
export function openEnvError(e: unknown): OpenEnvErrorData {
  if (!(e instanceof EdgegymError)) console.error("edgegym: OpenEnv message failed", e);
  const p = toProblem(e);
  return { message: p.detail ?? p.title, code: CODE_OF[p.code] ?? "EXECUTION_ERROR", problem: p };
}

/** A message that does not fit its schema. */
export function validationError(what: string, error: z.ZodError): OpenEnvErrorData {
  const errors = zodIssues(error);
  const first = errors[0];
  const detail = first ? `${first.path || what}: ${first.message}` : "does not match the schema";
  return { message: `invalid ${what}: ${detail}`, code: "VALIDATION_ERROR", errors };
}

/** The error a message gets before `reset` started an episode, or after the episode ended. */
export function sessionError(message: string): OpenEnvErrorData {
  return { message, code: "SESSION_ERROR" };
}

/** Thrown by the episode for a reply that is an error, not a failure of the server. */
export class OpenEnvFault extends Error {
  constructor(readonly data: OpenEnvErrorData) {
    super(data.message);
    this.name = "OpenEnvFault";
  }
}

export function faultData(e: unknown): OpenEnvErrorData {
  return e instanceof OpenEnvFault ? e.data : openEnvError(e);
}
