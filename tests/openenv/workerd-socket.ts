import { type FetchLike, type OpenEnvSocket, replyQueue } from "./target.js";

type WorkerdSocket = {
  accept(): void;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "message", listener: (e: { data: unknown }) => void): void;
  addEventListener(type: "close", listener: (e: { code: number }) => void): void;
};

/**
 * A `/ws` connection inside workerd: the upgrade request through `send` (`SELF.fetch`), and the
 * client end of the socket from the 101 response, as a Worker calling an env would hold it.
 */
export async function workerdSocket(
  send: FetchLike,
  url: string,
  headers: Record<string, string> = {},
): Promise<OpenEnvSocket> {
  const res = await send(url.replace(/^ws/, "http"), { headers: { upgrade: "websocket", ...headers } });
  const ws = (res as unknown as { webSocket: WorkerdSocket | null }).webSocket;
  if (res.status !== 101 || !ws) throw new Error(`upgrade refused: ${res.status} ${await res.text()}`);
  const queue = replyQueue();
  ws.addEventListener("message", (e) => queue.push(String(e.data)));
  ws.addEventListener("close", (e) => queue.end(e.code));
  ws.accept();
  return {
    ...queue.socket,
    send: (m) => ws.send(typeof m === "string" ? m : JSON.stringify(m)),
    close: () => ws.close(1000, "done"),
  };
}
