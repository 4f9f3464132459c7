import type { Hono } from "hono";
import { Agent, request } from "undici";

export type TransportResponse = {
  status: number;
  /** Response headers, lower-cased names. */
  headers: Record<string, string | undefined>;
  body: string;
};

/** Moves one JSON request to an environment and back; errors (network, abort) are thrown. */
export type Transport = {
  /** Where requests go, for logs. */
  readonly describe: string;
  request(
    method: "GET" | "POST",
    path: string,
    body: unknown,
    signal: AbortSignal,
  ): Promise<TransportResponse>;
  close(): Promise<void>;
};

export type HttpTransportOptions = {
  /** Most open connections (and so in-flight requests) to the origin; the rest queue in undici. */
  connections: number;
  /** Extra headers on every request (e.g. the hub bearer token). */
  headers?: Record<string, string>;
};

/** An environment over HTTP(S) through an undici keep-alive pool. `base` is the env's base URL. */
export function httpTransport(base: string, opts: HttpTransportOptions): Transport {
  const root = base.replace(/\/+$/, "");
  const agent = new Agent({ connections: opts.connections, keepAliveTimeout: 30_000, pipelining: 1 });
  return {
    describe: root,
    async request(method, path, body, signal) {
      const res = await request(`${root}${path}`, {
        method,
        dispatcher: agent,
        signal,
        headers: { "content-type": "application/json", accept: "application/json", ...opts.headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(res.headers)) {
        headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
      }
      return { status: res.statusCode, headers, body: await res.body.text() };
    },
    close: () => agent.close(),
  };
}

type FetchApp = Pick<Hono<{ Bindings: Record<string, unknown> }>, "fetch">;

/** An environment run in-process: requests go straight to the Hono app's `fetch` with `bindings`. */
export function localTransport(app: FetchApp, prefix: string, bindings: Record<string, unknown>): Transport {
  return {
    describe: `local:${prefix}`,
    async request(method, path, body, signal) {
      const req = new Request(`http://local${prefix}${path}`, {
        method,
        signal,
        headers: { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const aborted = new Promise<never>((_, reject) => {
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
      const res = await Promise.race([Promise.resolve(app.fetch(req, bindings)), aborted]);
      const headers: Record<string, string | undefined> = {};
      res.headers.forEach((value, name) => {
        headers[name] = value;
      });
      return { status: res.status, headers, body: await res.text() };
    },
    close: async () => {},
  };
}
