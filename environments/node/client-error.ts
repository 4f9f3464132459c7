import type { Duplex } from "node:stream";
import { type ErrorCode, PROBLEM_CONTENT_TYPE, problem } from "../../shared/errors.js";

/** Node's names for what went wrong before a request reached the app, and the problem for each. */
function codeFor(nodeCode: string | undefined): ErrorCode {
  switch (nodeCode) {
    case "HPE_HEADER_OVERFLOW":
      return "headers_too_large";
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return "request_timeout";
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return "body_too_large";
    default:
      return "bad_request";
  }
}

/** A whole HTTP/1.1 response as bytes: written straight to a socket whose parser has given up. */
export function rawProblemResponse(code: ErrorCode, detail?: string): Buffer {
  const p = problem(code, detail);
  const body = Buffer.from(JSON.stringify(p));
  const head =
    `HTTP/1.1 ${p.status} ${p.title}\r\n` +
    `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
    `Content-Length: ${body.length}\r\n` +
    "Connection: close\r\n\r\n";
  return Buffer.concat([Buffer.from(head, "latin1"), body]);
}

/**
 * The server's `clientError` handler: Node's HTTP parser refused the bytes (a bad chunk size, CL+TE,
 * a bad header, headers over the size limit) or the request did not arrive within its timeouts.
 * Node would answer a bare 400/408/431; edgegym answers problem+json like every other error, then
 * closes the connection, as Node does, because the rest of the stream cannot be trusted.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  // A reset connection has no one to answer; a response already under way cannot be replaced.
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const code = codeFor(err.code);
  const detail =
    code === "bad_request" ? `the HTTP parser refused the request (${err.code ?? "unknown"})` : undefined;
  socket.end(rawProblemResponse(code, detail), () => socket.destroy());
}
