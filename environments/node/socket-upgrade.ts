import { upgradeWebSocket } from "@hono/node-server";
import type { SocketEvents, SocketUpgrade } from "../kit/openenv/socket.js";

/**
 * The Node host's WebSocket upgrade: @hono/node-server's helper over the `ws` server that `listen`
 * gives it (the helper finds its own objects in the bindings `listen` passes on an upgrade).
 */
export const nodeUpgrade: SocketUpgrade = (c, open) => {
  let events: SocketEvents | undefined;
  return upgradeWebSocket(c, {
    onOpen: (_event, ws) => {
      events = open({
        send: (text) => ws.send(text),
        close: (code, reason) => ws.close(code, reason),
      });
    },
    onMessage: (event) => events?.onMessage(event.data as string | ArrayBuffer),
    onClose: () => events?.onClose(),
  });
};
