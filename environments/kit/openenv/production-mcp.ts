import { LRUCache } from "lru-cache";
import { EdgegymError } from "../../../shared/errors.js";
import { MAX_BODY_BYTES, readText } from "../../../shared/http.js";
import type { Environment } from "../define-environment.js";
import type { EnvRuntime } from "../types.js";
import { type EpisodeView, OpenEnvEpisode } from "./episode.js";
import { faultData } from "./errors.js";
import { answerToolsRpc, JsonRpcRequest, type JsonRpcResponse, RPC, rpcError, rpcResult } from "./rpc.js";

/** Most production-mode sessions one app holds; the one idle longest goes first. */
export const MAX_PRODUCTION_SESSIONS = 10_000;

/**
 * OpenEnv's production-mode MCP dialect (what `MCPToolClient` in production mode posts to `/mcp`),
 * served at `<base>/openenv/mcp` so that `<base>/mcp` stays standard MCP: `openenv/session/create`
 * starts an episode and names it by a `session_id`, `tools/list` and `tools/call` (with that
 * `session_id`) play it, `openenv/session/close` forgets it. The dialect has no session header, so
 * here, unlike everywhere else in the kit, the current token is kept server-side: in this isolate's
 * memory, bounded in count and by the token's own lifetime.
 */
export function productionMcp(
  env: Environment,
  now: () => number,
): (request: Request, runtime: EnvRuntime) => Promise<Response> {
  const sessions = new LRUCache<string, EpisodeView>({
    max: MAX_PRODUCTION_SESSIONS,
    ttl: env.limits.sessionTtlSeconds * 1000,
    updateAgeOnGet: false,
  });
  const busy = new Set<string>();

  const answer = async (request: JsonRpcRequest, runtime: EnvRuntime): Promise<JsonRpcResponse> => {
    const { id, method, params } = request;
    if (method === "openenv/session/create") {
      const episode = new OpenEnvEpisode(env, runtime, now);
      try {
        await episode.reset(params);
      } catch (e) {
        const data = faultData(e);
        return rpcError(id, RPC.SERVER_ERROR, data.message, { code: data.code });
      }
      const sessionId = crypto.randomUUID();
      if (episode.view) sessions.set(sessionId, episode.view);
      return rpcResult(id, { session_id: sessionId });
    }
    const sessionId = params.session_id;
    if (method === "openenv/session/close") {
      if (typeof sessionId !== "string" || sessionId === "")
        return rpcError(id, RPC.INVALID_PARAMS, "Invalid params - 'session_id' is required");
      if (!sessions.delete(sessionId))
        return rpcError(id, RPC.INVALID_PARAMS, `Unknown session_id: ${sessionId}`);
      return rpcResult(id, { session_id: sessionId, closed: true });
    }
    if (method !== "tools/list" && method !== "tools/call")
      return rpcError(id, RPC.METHOD_NOT_FOUND, `Method not found: ${method}`);
    const { session_id: _sid, ...rest } = params;
    const bare = { ...request, params: rest };
    if (method === "tools/list" && sessionId === undefined)
      return answerToolsRpc(new OpenEnvEpisode(env, runtime, now), bare);
    if (typeof sessionId !== "string" || sessionId === "")
      return rpcError(id, RPC.INVALID_PARAMS, "'session_id' is required: call openenv/session/create first");
    const view = sessions.get(sessionId);
    if (!view) return rpcError(id, RPC.INVALID_PARAMS, `Unknown session_id: ${sessionId}`);
    // Two calls racing on one session would both step from the same token.
    if (busy.has(sessionId))
      return rpcError(
        id,
        RPC.INVALID_REQUEST,
        `Session ${sessionId} is answering another call; retry after it`,
      );
    busy.add(sessionId);
    try {
      const episode = new OpenEnvEpisode(env, runtime, now, view);
      const response = await answerToolsRpc(episode, bare);
      if (episode.view && sessions.has(sessionId)) sessions.set(sessionId, episode.view);
      return response;
    } finally {
      busy.delete(sessionId);
    }
  };

  return async (request, runtime) => {
    if (request.method !== "POST")
      throw new EdgegymError("not_found", `no route ${request.method} ${new URL(request.url).pathname}`);
    let body: unknown;
    try {
      body = JSON.parse(await readText(request, MAX_BODY_BYTES));
    } catch (e) {
      if (e instanceof EdgegymError && e.code !== "invalid_json") throw e;
      return Response.json(rpcError(null, RPC.PARSE_ERROR, "Parse error"));
    }
    const parsed = JsonRpcRequest.safeParse(body);
    if (!parsed.success) return Response.json(rpcError(null, RPC.INVALID_REQUEST, "Invalid request"));
    return Response.json(await answer(parsed.data, runtime));
  };
}
