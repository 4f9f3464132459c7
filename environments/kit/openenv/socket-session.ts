import { MAX_BODY_BYTES } from "../../../shared/http.js";
import type { SocketEvents, SocketPeer } from "./socket.js";
import type { SocketOutcome, SocketReply } from "./socket-protocol.js";

export type SocketLimits = {
  /** A socket with no message for this long is closed (1001): an open socket holds memory. */
  idleTimeoutMs: number;
  /** Messages one socket may have waiting; beyond it, a `CAPACITY_REACHED` error instead of a queue. */
  maxQueued: number;
};

export const DEFAULT_SOCKET_LIMITS: SocketLimits = { idleTimeoutMs: 300_000, maxQueued: 16 };

/** Answers one socket's messages; made per socket, so whatever it holds lives as long as the socket. */
export type SocketAnswerer = (text: string) => Promise<SocketOutcome>;

/**
 * One `/ws` connection: its episode lives in `answerer`'s closure and nowhere else, so closing the
 * socket forgets it. Messages are answered one at a time in order, since each step needs the token
 * the previous one returned.
 */
export function episodeSocket(
  answerer: () => SocketAnswerer,
  limits: SocketLimits,
  onEnd: () => void,
): (peer: SocketPeer) => SocketEvents {
  return (peer) => {
    const answer = answerer();
    let queue: Promise<void> = Promise.resolve();
    let queued = 0;
    let open = true;
    let idle: ReturnType<typeof setTimeout> | undefined;
    const send = (reply: SocketReply) => {
      if (open) peer.send(JSON.stringify(reply));
    };
    const end = (code: number, reason: string) => {
      if (!open) return;
      open = false;
      clearTimeout(idle);
      onEnd();
      try {
        peer.close(code, reason);
      } catch {
        // Already closing from the other side.
      }
    };
    const arm = () => {
      clearTimeout(idle);
      idle = setTimeout(() => end(1001, "idle timeout"), limits.idleTimeoutMs);
    };
    arm();
    return {
      onMessage(data) {
        if (!open) return;
        arm();
        const text = typeof data === "string" ? data : new TextDecoder().decode(data);
        if (text.length > MAX_BODY_BYTES) {
          send({
            type: "error",
            data: { message: `a message may have at most ${MAX_BODY_BYTES} bytes`, code: "VALIDATION_ERROR" },
          });
          end(1009, "message too big");
          return;
        }
        if (queued >= limits.maxQueued) {
          send({
            type: "error",
            data: {
              message: `more than ${limits.maxQueued} messages waiting on this socket`,
              code: "CAPACITY_REACHED",
            },
          });
          return;
        }
        queued++;
        queue = queue.then(async () => {
          const outcome = await answer(text);
          queued--;
          if ("close" in outcome) end(1000, "closed by client");
          else send(outcome.reply);
        });
      },
      onClose() {
        if (!open) return;
        open = false;
        clearTimeout(idle);
        onEnd();
      },
    };
  };
}
