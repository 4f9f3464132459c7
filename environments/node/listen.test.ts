import { connect } from "node:net";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { errorStatus, PROBLEM_CONTENT_TYPE, Problem } from "../../shared/errors.js";
import { createEnvironmentsHost } from "../host.js";
import { generateSecrets } from "../kit/index.js";
import { lookup } from "../lookup/index.js";
import { type Listening, listen } from "./listen.js";

type Raw = { status: number; headers: Record<string, string>; body: string };

/**
 * Sends `bytes` over a fresh TCP connection, leaves it open (unless `end`), and resolves with the
 * response once the server closes the connection: what a client sees byte for byte.
 */
function exchange(port: number, bytes: string | Buffer, end = false): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    // A reset after the response is the server refusing the rest of a request: the response counts.
    socket.on("error", (e) => (chunks.length > 0 ? undefined : reject(e)));
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("latin1");
      const [head = "", ...rest] = text.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body: rest.join("\r\n\r\n") });
    });
    socket.write(bytes);
    if (end) socket.end();
  });
}

/** Asserts a problem+json response with `code` and its status. */
function expectRawProblem(r: Raw, code: keyof typeof errorStatus): void {
  expect(r.status, r.body).toBe(errorStatus[code]);
  expect(r.headers["content-type"]).toBe(PROBLEM_CONTENT_TYPE);
  expect(Problem.parse(JSON.parse(r.body))).toMatchObject({ code, status: errorStatus[code] });
  expect(Number(r.headers["content-length"])).toBe(Buffer.byteLength(r.body));
}

const POST = "POST /envs/lookup/v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";

describe("the Node host (listen) with malformed HTTP", () => {
  let server: Listening;
  /** Hooks around each request the app sees: when it arrives, and when it has been answered. */
  let arrived = () => {};
  let answered = () => {};
  const errors = vi.spyOn(console, "error");

  beforeAll(async () => {
    const outer = new Hono<{ Bindings: Record<string, unknown> }>();
    outer.use(async (_c, next) => {
      arrived();
      try {
        await next();
      } finally {
        answered();
      }
    });
    outer.route("/", createEnvironmentsHost([lookup]));
    // Short timeouts, so that the slow-client tests end quickly; the results never depend on them.
    server = await listen(outer, await generateSecrets(), 0, "127.0.0.1", {
      headersTimeoutMs: 500,
      requestTimeoutMs: 1000,
      checkIntervalMs: 100,
    });
  });
  afterAll(async () => {
    await server.close();
    errors.mockRestore();
  });

  it("a well-formed request is still served", async () => {
    const r = await exchange(server.port, `${POST}Content-Length: 2\r\nConnection: close\r\n\r\n{}`);
    expect(r.status).toBe(201);
  });

  const malformed: [string, string, keyof typeof errorStatus][] = [
    ["a bad chunk size", `${POST}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`, "bad_request"],
    [
      "Content-Length with Transfer-Encoding",
      `${POST}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
      "bad_request",
    ],
    ["a duplicate Content-Length", `${POST}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`, "bad_request"],
    ["a negative Content-Length", `${POST}Content-Length: -1\r\n\r\n{}`, "bad_request"],
    ["a NUL in a header", `${POST}X-Probe: a\0b\r\nContent-Length: 2\r\n\r\n{}`, "bad_request"],
    ["a CR in a header", `${POST}X-Probe: a\rb\r\nContent-Length: 2\r\n\r\n{}`, "bad_request"],
    [
      "a 60 KB header",
      `${POST}X-Probe: ${"a".repeat(60 * 1024)}\r\nContent-Length: 2\r\n\r\n{}`,
      "headers_too_large",
    ],
    [
      "a 100 KB URL",
      `GET /envs/lookup/v1/manifest?q=${"a".repeat(100 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      "headers_too_large",
    ],
  ];
  for (const [what, request, code] of malformed) {
    it(`${what} is answered with problem+json ${code}`, async () => {
      expectRawProblem(await exchange(server.port, request), code);
    });
  }

  it("a body shorter than its Content-Length is 408 request_timeout, not held open", async () => {
    const r = await exchange(server.port, `${POST}Content-Length: 100\r\n\r\n{"split":`);
    expectRawProblem(r, "request_timeout");
  });

  it("headers that never end are 408 request_timeout", async () => {
    expectRawProblem(await exchange(server.port, `${POST}X-Slow: 1\r\n`), "request_timeout");
  });

  it("a client that disconnects mid-body is not logged as an error", async () => {
    errors.mockClear();
    const inApp = new Promise<void>((r) => {
      arrived = r;
    });
    const done = new Promise<void>((r) => {
      answered = r;
    });
    const socket = connect(server.port, "127.0.0.1");
    socket.on("error", () => {});
    socket.write(`${POST}Content-Length: 100\r\n\r\n{"split":`);
    // Once the app is reading the body, the close cuts it short; the log is final once it answers.
    await inApp;
    socket.destroy();
    await done;
    expect(errors.mock.calls.map((c) => c.join(" ")).join("\n")).not.toMatch(/unhandled error|aborted/);
  });
});
