import type { IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import { WebSocketServer } from "ws";
import { MAX_BODY_BYTES } from "../../shared/http.js";
import { setMcpClient } from "../kit/mcp/handler.js";
import { HOST_BINDINGS, HOST_UPGRADE } from "../kit/openenv/socket.js";
import { answerClientError } from "./client-error.js";
import { nodeUpgrade } from "./socket-upgrade.js";

export type Listening = { port: number; url: string; close(): Promise<void> };

export type ListenOptions = {
  /** Time for a request's headers to arrive; then 408 `request_timeout`. Default 10 s. */
  headersTimeoutMs?: number;
  /**
   * Time for a whole request (headers and body) to arrive; then 408 `request_timeout`, so a client
   * that declares 100 bytes and sends 10 is not held for Node's default 5 minutes. Default 30 s,
   * ample for a 1 MiB body. Answers may take longer: this bounds receiving, not working.
   */
  requestTimeoutMs?: number;
  /** How often Node checks those timeouts. Default 1 s. */
  checkIntervalMs?: number;
  /**
   * How long an idle keep-alive connection stays open for the client's next request. Default 65 s,
   * past the clients' own idle limits (undici's 4 s below a server's hint, a load balancer's 60 s): a
   * server that closes first races a client that is just reusing the socket, which then reads a
   * reset. Node's own 5 s lost that race under load.
   */
  keepAliveTimeoutMs?: number;
};

/**
 * Serves a Hono app over real HTTP on Node with fixed bindings (secrets, the local database):
 * `port` 0 picks a free one. Requests Node's HTTP parser refuses get problem+json too. Each request
 * is named by its peer's address for MCP's per-client bound (a header would be the client's to choose).
 */
export function listen(
  // biome-ignore lint/suspicious/noExplicitAny: any app's env type; bindings are passed as-is.
  app: Hono<any>,
  bindings: Record<string, unknown>,
  port = 0,
  hostname = "127.0.0.1",
  options: ListenOptions = {},
): Promise<Listening> {
  const serverOptions = {
    headersTimeout: options.headersTimeoutMs ?? 10_000,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    connectionsCheckingInterval: options.checkIntervalMs ?? 1_000,
  };
  // WebSocket upgrades (OpenEnv's `/ws`) reach the app with @hono/node-server's own bindings object,
  // which its upgrade helper needs; the app's bindings are copied onto it, and ride along whole under
  // HOST_BINDINGS for the caches keyed by the bindings object.
  const websocket = { server: new WebSocketServer({ noServer: true, maxPayload: MAX_BODY_BYTES }) };
  const fetch = (req: Request, nodeEnv?: Record<string | symbol, unknown>) =>
    app.fetch(
      req,
      nodeEnv?.incoming && nodeEnv.wss
        ? Object.assign(nodeEnv, bindings, { [HOST_BINDINGS]: bindings, [HOST_UPGRADE]: nodeUpgrade })
        : withClient(req, nodeEnv, bindings),
    );
  return new Promise((done) => {
    const server = serve({ fetch, port, hostname, serverOptions, websocket }, (info) => {
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
    if ("keepAliveTimeout" in server) server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 65_000;
    server.on("clientError", answerClientError);
  });
}

function withClient(
  req: Request,
  nodeEnv: Record<string | symbol, unknown> | undefined,
  bindings: Record<string, unknown>,
): Record<string, unknown> {
  const address = (nodeEnv?.incoming as IncomingMessage | undefined)?.socket.remoteAddress;
  if (address !== undefined) setMcpClient(req, address);
  return bindings;
}
