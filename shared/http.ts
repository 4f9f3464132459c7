import type { z } from "zod";
import { EdgegymError, PROBLEM_CONTENT_TYPE, type Problem, toProblem, zodIssues } from "./errors.js";

/** A problem+json response; `Retry-After` is set from `retryAfter` for 429s. */
export function problemResponse(problem: Problem, headers: Record<string, string> = {}): Response {
  const h: Record<string, string> = { "content-type": PROBLEM_CONTENT_TYPE, ...headers };
  if (problem.retryAfter !== undefined) h["retry-after"] = String(Math.ceil(problem.retryAfter));
  return new Response(JSON.stringify(problem), { status: problem.status, headers: h });
}

/**
 * The response for any thrown value; unknown errors are logged server-side and never leak details.
 * A refused body closes the connection, so the rest of it is never read.
 */
export function errorResponse(err: unknown): Response {
  if (!(err instanceof EdgegymError)) console.error("edgegym: unhandled error", err);
  const p = toProblem(err);
  return problemResponse(p, p.code === "body_too_large" ? { connection: "close" } : {});
}

/** The 413 for a body over `maxBytes`. */
export function bodyTooLarge(maxBytes: number): EdgegymError {
  return new EdgegymError("body_too_large", `request bodies are limited to ${maxBytes} bytes`);
}

const decoder = new TextDecoder();

/** The protocol's body limit: a request over 1 MiB is refused before it is parsed. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * A request body as text, refused with 413 `body_too_large` past `maxBytes` before anything is
 * parsed. A declared Content-Length is checked from the header alone, which keeps Node's server on
 * its fast path (the body is read once, never wrapped in a stream); a body without one is counted
 * as it streams in and abandoned at the limit.
 */
export async function readText(request: Request, maxBytes: number): Promise<string> {
  const declared = request.headers.get("content-length");
  if (declared !== null && !request.headers.has("transfer-encoding")) {
    if (Number(declared) > maxBytes) throw bodyTooLarge(maxBytes);
    return request.text().catch(cutShort);
  }
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read().catch(cutShort);
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw bodyTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return decoder.decode(chunks[0]);
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return decoder.decode(all);
}

/**
 * A body that stopped arriving: the client disconnected or sent bytes the HTTP parser refused. That is
 * the client's doing, not a server fault, so it is a problem (never logged as an unhandled error),
 * though usually no one is left to read it.
 */
function cutShort(): never {
  throw new EdgegymError("bad_request", "the request body was cut short");
}

/**
 * Reads a request body of at most `maxBytes` as JSON and validates it, throwing `body_too_large`,
 * `invalid_json` or `invalid_request`.
 */
export async function readBody<S extends z.ZodType>(
  request: Request,
  schema: S,
  maxBytes = MAX_BODY_BYTES,
): Promise<z.infer<S>> {
  const text = await readText(request, maxBytes);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
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
