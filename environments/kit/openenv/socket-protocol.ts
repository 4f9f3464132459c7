import { WSIncoming } from "../../../shared/openenv.js";
import type { OpenEnvEpisode } from "./episode.js";
import { faultData, type OpenEnvErrorData, validationError } from "./errors.js";
import { answerToolsRpc, JsonRpcRequest, RPC, rpcError } from "./rpc.js";

/** A `/ws` reply (`WSObservationResponse`, `WSStateResponse`, `WSErrorResponse`, `WSMCPResponse`). */
export type SocketReply =
  | { type: "observation"; data: unknown }
  | { type: "state"; data: unknown }
  | { type: "error"; data: OpenEnvErrorData }
  | { type: "mcp"; data: unknown };

/** What one incoming message leads to: a reply, or `close` (OpenEnv's `close` message has none). */
export type SocketOutcome = { reply: SocketReply } | { close: true };

export const error = (data: OpenEnvErrorData): SocketOutcome => ({ reply: { type: "error", data } });

/**
 * One `/ws` text message parsed as OpenEnv's server loop does, or the error reply it gets
 * (`INVALID_JSON`, `UNKNOWN_TYPE`, `VALIDATION_ERROR`).
 */
export function parseSocketMessage(text: string): { message: WSIncoming } | { refused: SocketOutcome } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    const why = e instanceof Error ? e.message : "not JSON";
    return { refused: error({ message: `Invalid JSON: ${why}`, code: "INVALID_JSON" }) };
  }
  const type = typeof raw === "object" && raw !== null ? (raw as { type?: unknown }).type : undefined;
  if (!["reset", "step", "state", "close", "mcp"].includes(type as string)) {
    return {
      refused: error({ message: `Unknown message type: ${String(type ?? "")}`, code: "UNKNOWN_TYPE" }),
    };
  }
  const parsed = WSIncoming.safeParse(raw);
  if (!parsed.success) return { refused: error(validationError(`${String(type)} message`, parsed.error)) };
  return { message: parsed.data };
}

/** Answers one `/ws` text message for the socket's episode. */
export async function answerSocketMessage(episode: OpenEnvEpisode, text: string): Promise<SocketOutcome> {
  const parsed = parseSocketMessage(text);
  if ("refused" in parsed) return parsed.refused;
  const message = parsed.message;
  try {
    switch (message.type) {
      case "reset":
        return { reply: { type: "observation", data: await episode.reset(message.data) } };
      case "step":
        return { reply: { type: "observation", data: await episode.step(message.data) } };
      case "state":
        return { reply: { type: "state", data: episode.state() } };
      case "close":
        return { close: true };
      case "mcp": {
        const rpc = JsonRpcRequest.safeParse(message.data);
        const data = rpc.success
          ? await answerToolsRpc(episode, rpc.data)
          : rpcError(null, RPC.INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 request");
        return { reply: { type: "mcp", data } };
      }
    }
  } catch (e) {
    return error(faultData(e));
  }
}
