import type { Context } from "hono";
import { onWorkerd } from "../../../shared/runtime.js";

/** The server's end of an accepted WebSocket, whatever the host. */
export type SocketPeer = {
  send(text: string): void;
  close(code: number, reason: string): void;
};

/** What the app does with a socket's traffic once it is open. */
export type SocketEvents = {
  onMessage(data: string | ArrayBuffer | Uint8Array): void;
  onClose(): void;
};

/**
 * Accepts the WebSocket upgrade of the request in `c` and answers the handshake; `open` is called
 * with the peer once the socket is open, and returns what to do with its traffic.
 */
export type SocketUpgrade = (
  c: Context<{ Bindings: Record<string, unknown> }>,
  open: (peer: SocketPeer) => SocketEvents,
) => Response | Promise<Response>;

/**
 * Where a host that is not workerd puts its upgrade and the app's real bindings in the bindings of an
 * upgrade request: @hono/node-server hands the app its own object on upgrades, so the Node host
 * (environments/node/listen.ts) adds these to it.
 */
export const HOST_UPGRADE = Symbol.for("edgegym.socketUpgrade");
export const HOST_BINDINGS = Symbol.for("edgegym.bindings");

/** The app's bindings for a request: the host's own on a Node upgrade, else the request's. */
export function appBindings(bindings: Record<string | symbol, unknown> | undefined): Record<string, unknown> {
  const own = bindings?.[HOST_BINDINGS];
  return (
    (own as Record<string, unknown> | undefined) ?? (bindings as Record<string, unknown> | undefined) ?? {}
  );
}

/** The upgrade this host offers: the Node host's, workerd's WebSocketPair, or none (in-process). */
export function hostUpgrade(
  bindings: Record<string | symbol, unknown> | undefined,
): SocketUpgrade | undefined {
  const own = bindings?.[HOST_UPGRADE];
  if (typeof own === "function") return own as SocketUpgrade;
  return onWorkerd ? workerdUpgrade : undefined;
}

type WorkerdSocket = {
  accept(): void;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "message", listener: (e: { data: string | ArrayBuffer }) => void): void;
  addEventListener(type: "close" | "error", listener: () => void): void;
};

/**
 * workerd's WebSocketPair: the server end is accepted in this invocation (no Durable Object, so no
 * hibernation), and the episode lives in the handlers' closure for as long as the socket is open.
 */
const workerdUpgrade: SocketUpgrade = (_c, open) => {
  const Pair = (globalThis as unknown as { WebSocketPair: new () => Record<0 | 1, WorkerdSocket> })
    .WebSocketPair;
  const pair = new Pair();
  const client = pair[0];
  const server = pair[1];
  server.accept();
  const events = open({
    send: (text) => server.send(text),
    close: (code, reason) => server.close(code, reason),
  });
  let closed = false;
  const closeOnce = () => {
    if (closed) return;
    closed = true;
    events.onClose();
  };
  server.addEventListener("message", (e) => events.onMessage(e.data));
  server.addEventListener("close", closeOnce);
  server.addEventListener("error", closeOnce);
  return new Response(null, { status: 101, webSocket: client } as ResponseInit);
};
