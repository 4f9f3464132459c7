import type { z } from "zod";

/**
 * OpenAI's error body, `{error: {message, type, param, code}}`: what the official SDKs parse into
 * `APIError.message/type/param/code`. edgegym's own HTTP APIs answer problem+json (RFC 9457); this
 * server answers in the dialect its clients speak, with the same idea of a stable `code`.
 */
export type OpenAIError = {
  status: 400 | 403 | 404 | 405 | 413 | 415 | 500 | 503;
  body: {
    error: { message: string; type: string; param: string | null; code: string | null };
  };
};

export function openAIError(
  status: OpenAIError["status"],
  message: string,
  code: string,
  param: string | null = null,
): OpenAIError {
  const type = status >= 500 ? "server_error" : "invalid_request_error";
  return { status, body: { error: { message, type, param, code } } };
}

/**
 * The first zod issue as one error naming its parameter (`messages.2.content`), with OpenAI's wording
 * for an unknown argument.
 */
export function fromZod(error: z.ZodError, input: unknown): OpenAIError {
  const issue = error.issues[0];
  if (issue === undefined) return openAIError(400, "invalid request", "invalid_value");
  if (issue.code === "unrecognized_keys") {
    const at = issue.path.length > 0 ? `${issue.path.join(".")}.` : "";
    const keys = issue.keys.map((k) => `${at}${k}`);
    return openAIError(
      400,
      `Unrecognized request argument supplied: ${keys.join(", ")} (edgegym serve does not implement it)`,
      "unrecognized_argument",
      keys[0] ?? null,
    );
  }
  const param = issue.path.length > 0 ? issue.path.join(".") : null;
  const where = param === null ? "" : `${param}: `;
  const missing = issue.path.length > 0 && valueAt(input, issue.path) === undefined;
  return missing
    ? openAIError(400, `${where}is required`, "missing_required_parameter", param)
    : openAIError(400, `${where}${issue.message}`, "invalid_value", param);
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let at = input;
  for (const key of path) {
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}
