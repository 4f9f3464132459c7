import { EdgegymError } from "../shared/errors.js";

/** `application/json` or `application/<x>+json`, with parameters such as `; charset=utf-8`. */
const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/**
 * 415 `unsupported_media_type` for a request whose body is not declared JSON. The OpenAPI routes get
 * this from @hono/zod-openapi (its 415 is mapped in the app's error handler); routes that read their
 * body themselves call this first.
 */
export function requireJson(request: Request): void {
  const type = request.headers.get("content-type");
  if (type === null || !JSON_TYPE.test(type)) {
    throw new EdgegymError(
      "unsupported_media_type",
      `the body must be sent as content-type application/json, not ${type ?? "without a content-type"}`,
    );
  }
}
