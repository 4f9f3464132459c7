import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";

export type Listening = { port: number; url: string; close(): Promise<void> };

/**
 * Serves a Hono app over real HTTP on Node with fixed bindings (secrets, the local database):
 * `port` 0 picks a free one.
 */
export function listen(
  // biome-ignore lint/suspicious/noExplicitAny: any app's env type; bindings are passed as-is.
  app: Hono<any>,
  bindings: Record<string, unknown>,
  port = 0,
  hostname = "127.0.0.1",
): Promise<Listening> {
  return new Promise((done) => {
    const server = serve({ fetch: (req) => app.fetch(req, bindings), port, hostname }, (info) => {
      const actual = (info as AddressInfo).port;
      done({
        port: actual,
        url: `http://${hostname}:${actual}`,
        close: () =>
          new Promise<void>((closed) => {
            if ("closeAllConnections" in server) server.closeAllConnections();
            server.close(() => closed());
          }),
      });
    });
  });
}
