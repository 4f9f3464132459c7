import { z } from "zod";
import type { OpenEnvResult } from "../../../shared/openenv.js";
import type { OpenEnvEpisode } from "./episode.js";
import { faultData } from "./errors.js";

/** JSON-RPC 2.0 as OpenEnv's `JsonRpcRequest` takes it: params an object, the id a string or number. */
export const JsonRpcRequest = z
  .object({
    jsonrpc: z.literal("2.0"),
    method: z.string(),
    params: z.record(z.string(), z.unknown()).default({}),
    id: z.union([z.string(), z.number(), z.null()]).optional(),
  })
  .strict();
export type JsonRpcRequest = z.infer<typeof JsonRpcRequest>;

export type RpcId = string | number | null;
export type JsonRpcResponse =
  | { jsonrpc: "2.0"; id: RpcId; result: unknown }
  | { jsonrpc: "2.0"; id: RpcId; error: { code: number; message: string; data?: unknown } };

/** OpenEnv's `JsonRpcErrorCode`. */
export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  SERVER_ERROR: -32000,
} as const;

export function rpcResult(id: RpcId | undefined, result: unknown): JsonRpcResponse {
  return { jsonrpc: "2.0", id: id ?? null, result };
}

export function rpcError(
  id: RpcId | undefined,
  code: number,
  message: string,
  data?: unknown,
): JsonRpcResponse {
  return {
    jsonrpc: "2.0",
    id: id ?? null,
    error: { code, message, ...(data === undefined ? {} : { data }) },
  };
}

/**
 * `tools/list` and `tools/call` against one episode, as OpenEnv's MCP handler answers them: a call is
 * one step, its result MCP's `CallToolResult` with the text also under `data` (what OpenEnv's
 * `MCPToolClient.call_tool` returns), and the step's reward, done and metadata beside it.
 */
export async function answerToolsRpc(
  episode: OpenEnvEpisode,
  request: JsonRpcRequest,
): Promise<JsonRpcResponse> {
  const { id, method, params } = request;
  if (method === "tools/list") {
    return rpcResult(id, { tools: episode.tools.tools });
  }
  if (method === "tools/call") {
    const name = params.name;
    if (typeof name !== "string" || name === "")
      return rpcError(id, RPC.INVALID_PARAMS, "Missing 'name' in params");
    const args = params.arguments ?? {};
    if (typeof args !== "object" || args === null || Array.isArray(args))
      return rpcError(id, RPC.INVALID_PARAMS, "'arguments' must be an object");
    try {
      const r = await episode.callTool({
        type: "call_tool",
        tool_name: name,
        arguments: args as Record<string, unknown>,
      });
      return toolsCallResponse(id, r);
    } catch (e) {
      const data = faultData(e);
      return rpcError(
        id,
        data.code === "EXECUTION_ERROR" ? RPC.INTERNAL_ERROR : RPC.INVALID_REQUEST,
        data.message,
        {
          code: data.code,
        },
      );
    }
  }
  return rpcError(id, RPC.METHOD_NOT_FOUND, `Method not found: ${method}`);
}

/** A `call_tool` step's observation as the JSON-RPC answer to `tools/call`. */
export function toolsCallResponse(id: RpcId | undefined, r: OpenEnvResult): JsonRpcResponse {
  const obs = r.observation as { result?: unknown; error?: { error_type: string; message: string } | null };
  if (obs.error) {
    return rpcResult(id, {
      content: [{ type: "text", text: `Error: ${obs.error.message}` }],
      isError: true,
      data: null,
    });
  }
  return rpcResult(id, {
    ...(obs.result as Record<string, unknown>),
    reward: r.reward,
    done: r.done,
    metadata: r.observation.metadata,
  });
}
