import { EdgegymError } from "../../shared/errors.js";

/**
 * The most bytes the hub takes from an env for one call, unless `HUB_UPSTREAM_MAX_BYTES` says
 * otherwise. Steps of the built-ins answer in kilobytes; a batch of 64 webshop pages in well under a
 * MiB. The whole body is held in memory (see `readWithin`), so the cap is what one call may cost.
 */
export const UPSTREAM_MAX_BYTES = 8 * 1024 * 1024;

/** Statuses whose response may carry no body (the Response constructor refuses one). */
const NULL_BODY = new Set([204, 205, 304]);

/**
 * `res` with its whole body read before `deadline` settles and within `maxBytes`, so the call's
 * deadline covers the body too: an env that sends its headers and then a byte at a time is cut off
 * (its stream cancelled, which closes the connection) and the caller gets `504 upstream_timeout`
 * instead of an answer that never ends. A body past the cap is `502 upstream_bad_response`.
 */
export async function readWithin(
  res: Response,
  deadline: Promise<never>,
  maxBytes: number,
): Promise<Response> {
  const init = { status: res.status, statusText: res.statusText, headers: res.headers };
  if (!res.body || NULL_BODY.has(res.status)) {
    await res.body?.cancel();
    return new Response(null, init);
  }
  const declared = Number(res.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body.cancel();
    throw tooLarge(maxBytes);
  }
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), deadline]);
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) throw tooLarge(maxBytes);
      chunks.push(value);
    }
  } catch (e) {
    // Cancelling tells the runtime to drop the upstream connection; don't wait on a peer that stalls.
    reader.cancel().catch(() => {});
    if (e instanceof EdgegymError) throw e;
    throw new EdgegymError("upstream_unreachable", "the environment's response was cut off");
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.byteLength;
  }
  return new Response(body, init);
}

function tooLarge(maxBytes: number): EdgegymError {
  return new EdgegymError(
    "upstream_bad_response",
    `the environment's response is larger than the hub's limit of ${maxBytes} bytes`,
  );
}
