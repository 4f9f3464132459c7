import WebSocket from "ws";
import { type OpenEnvSocket, replyQueue } from "./target.js";

/** A `/ws` connection from Node, with the `ws` client (as OpenEnv's Python client, a plain RFC 6455 one). */
export function nodeSocket(url: string, headers: Record<string, string> = {}): Promise<OpenEnvSocket> {
  const ws = new WebSocket(url, { headers });
  const queue = replyQueue();
  ws.on("message", (data) => queue.push(String(data)));
  ws.on("close", (code) => queue.end(code));
  return new Promise((resolve, reject) => {
    ws.once("open", () =>
      resolve({
        ...queue.socket,
        send: (m) => ws.send(typeof m === "string" ? m : JSON.stringify(m)),
        close: () => ws.close(1000),
      }),
    );
    ws.once("unexpected-response", (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    ws.once("error", reject);
  });
}
