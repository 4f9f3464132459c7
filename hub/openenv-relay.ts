import { openEnvError } from "../environments/kit/openenv/errors.js";
import { JsonRpcRequest, RPC, rpcError, toolsCallResponse } from "../environments/kit/openenv/rpc.js";
import {
  error,
  parseSocketMessage,
  type SocketOutcome,
} from "../environments/kit/openenv/socket-protocol.js";
import type { SocketAnswerer } from "../environments/kit/openenv/socket-session.js";
import { OpenEnvResult, type OpenEnvState } from "../shared/openenv.js";
import type { TaskRef } from "../shared/protocol.js";
import { upstreamError } from "./registry/upstream.js";

/** Sends a JSON body to one of the env's OpenEnv paths (`reset`, `step`, `openenv/mcp`) within the gateway's deadline. */
export type RelayCall = (path: string, body: unknown) => Promise<Response>;

type View = {
  token: string;
  episodeId?: string;
  task?: TaskRef;
  step: number;
  done: boolean;
  return: number;
};

const sessionError = (message: string): SocketOutcome => error({ message, code: "SESSION_ERROR" });

/**
 * The gateway's side of an OpenEnv `/ws`: the client's socket ends at the hub, and each message
 * becomes one stateless call to the env (`POST <base>/reset`, `<base>/step` with the token), so the
 * env's own answers, errors and limits apply. The token lives in this closure only; `limit` is the
 * caller's rate limit, taken per message as the HTTP gateway takes it per request.
 */
export function relayAnswerer(
  env: { name: string; version: string },
  call: RelayCall,
  limit: () => Promise<void>,
): SocketAnswerer {
  let view: View | undefined;

  const observe = async (path: string, body: unknown): Promise<OpenEnvResult> => {
    await limit();
    const res = await call(path, body);
    if (res.status !== 200) throw await upstreamError(res);
    const r = OpenEnvResult.parse(await res.json());
    const m = r.observation.metadata;
    const reward = r.reward ?? 0;
    if (typeof m.session === "string") {
      view = {
        token: m.session,
        ...(m.episode_id === undefined ? {} : { episodeId: m.episode_id }),
        ...(m.task === undefined ? {} : { task: m.task }),
        step: m.step ?? 0,
        done: r.done,
        return: path === "reset" ? 0 : (view?.return ?? 0) + reward,
      };
    }
    return r;
  };

  const step = (data: Record<string, unknown>) => {
    if (!view) throw new RelayFault(sessionError("no episode: send reset first"));
    if (view.done) throw new RelayFault(sessionError("this episode is finished; send reset for another"));
    return observe("step", { action: data, session: view.token });
  };

  const state = (): OpenEnvState => ({
    episode_id: view?.episodeId ?? null,
    step_count: view?.step ?? 0,
    env: env.name,
    version: env.version,
    task: view?.task ?? null,
    done: view?.done ?? false,
    return: view?.return ?? 0,
  });

  /** Tool listing needs no episode: the env's production MCP endpoint answers it without one. */
  const listTools = async (id: string | number | null | undefined): Promise<unknown> => {
    await limit();
    const res = await call("openenv/mcp", {
      jsonrpc: "2.0",
      id: id ?? null,
      method: "tools/list",
      params: {},
    });
    if (res.status !== 200) throw await upstreamError(res);
    return res.json();
  };

  return async (text) => {
    const parsed = parseSocketMessage(text);
    if ("refused" in parsed) return parsed.refused;
    const message = parsed.message;
    try {
      switch (message.type) {
        case "reset":
          return { reply: { type: "observation", data: await observe("reset", message.data) } };
        case "step": {
          if (message.data.type === "list_tools" && !view) {
            const listed = (await listTools(null)) as { result?: { tools?: unknown[] } };
            // OpenEnv's Tool names the schema `input_schema`; MCP's, `inputSchema`: both, as the kit lists them.
            const tools = (listed.result?.tools ?? []).map((t) => ({
              ...(t as Record<string, unknown>),
              input_schema: (t as { inputSchema?: unknown }).inputSchema,
            }));
            const data = {
              observation: { tools, messages: [], mode: "append", metadata: { truncated: false } },
              reward: null,
              done: false,
            };
            return { reply: { type: "observation", data } };
          }
          return { reply: { type: "observation", data: await step(message.data) } };
        }
        case "state":
          return { reply: { type: "state", data: state() } };
        case "close":
          return { close: true };
        case "mcp": {
          const rpc = JsonRpcRequest.safeParse(message.data);
          if (!rpc.success)
            return {
              reply: {
                type: "mcp",
                data: rpcError(null, RPC.INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 request"),
              },
            };
          const { id, method, params } = rpc.data;
          if (method === "tools/list") return { reply: { type: "mcp", data: await listTools(id) } };
          if (method !== "tools/call")
            return {
              reply: { type: "mcp", data: rpcError(id, RPC.METHOD_NOT_FOUND, `Method not found: ${method}`) },
            };
          try {
            const r = await step({
              type: "call_tool",
              tool_name: params.name,
              arguments: params.arguments ?? {},
            });
            return { reply: { type: "mcp", data: toolsCallResponse(id, r) } };
          } catch (e) {
            const data = e instanceof RelayFault ? e.outcome : error(openEnvError(e));
            const fault = "reply" in data && data.reply.type === "error" ? data.reply.data : openEnvError(e);
            const code = fault.code === "EXECUTION_ERROR" ? RPC.INTERNAL_ERROR : RPC.INVALID_REQUEST;
            return { reply: { type: "mcp", data: rpcError(id, code, fault.message, { code: fault.code }) } };
          }
        }
      }
    } catch (e) {
      return e instanceof RelayFault ? e.outcome : error(openEnvError(e));
    }
  };
}

class RelayFault extends Error {
  constructor(readonly outcome: SocketOutcome) {
    super("relay fault");
  }
}
