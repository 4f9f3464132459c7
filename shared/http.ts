import type { z } from "zod";
import { EdgegymError, PROBLEM_CONTENT_TYPE, type Problem, toProblem, zodIssues } from "./errors.js";

/** A problem+json response; `Retry-After` is set from `retryAfter` for 429s. */
export function problemResponse(problem: Problem, headers: Record<string, string> = {}): Response {
  const h: Record<string, string> = { "content-type": PROBLEM_CONTENT_TYPE, ...headers };
  if (problem.retryAfter !== undefined) h["retry-after"] = String(Math.ceil(problem.retryAfter));
  return new Response(JSON.stringify(problem), { status: problem.status, headers: h });
}

/** The response for any thrown value; unknown errors are logged server-side and never leak details. */
export function errorResponse(err: unknown): Response {
  if (!(err instanceof EdgegymError)) console.error("edgegym: unhandled error", err);
  return problemResponse(toProblem(err));
}

/** Parses a request body as JSON and validates it, throwing `invalid_json` or `invalid_request`. */
export async function readBody<S extends z.ZodType>(request: Request, schema: S): Promise<z.infer<S>> {
  let json: unknown;
  try {
    json = await request.json();
  } catch (e) {
    if (e instanceof EdgegymError) throw e;
    throw new EdgegymError("invalid_json", "the request body is not valid JSON");
  }
  return parseWith(schema, json);
}

export function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new EdgegymError("invalid_request", "the request does not match the schema", {
      issues: zodIssues(parsed.error),
    });
  }
  return parsed.data;
}
