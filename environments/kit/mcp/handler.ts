import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  ErrorCode,
  type InitializeRequest,
  isInitializeRequest,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { isJsonContentType, isLegacyRequest } from "@modelcontextprotocol/server";
import { EdgegymError } from "../../../shared/errors.js";
import { MAX_BODY_BYTES, readText } from "../../../shared/http.js";
import type { Environment } from "../define-environment.js";
import type { EnvRuntime } from "../types.js";
import { durableSessionStore } from "./durable-store.js";
import { startChosenTask } from "./episode-calls.js";
import { episodeServer } from "./episode-server.js";
import {
  type Admission,
  DEFAULT_MAX_SESSIONS_PER_CLIENT,
  type McpEpisode,
  type McpSessionStore,
  MemorySessionStore,
} from "./session-store.js";
import { statelessMcpHandler } from "./stateless-server.js";
import { mcpTools } from "./tools.js";

export type McpOptions = {
  /** Clock in ms; tests move it to expire sessions. */
  now?: () => number;
  /**
   * Where episodes live between calls. Default: the Durable Object namespace when the bindings have
   * `EDGEGYM_MCP_SESSIONS`, else one bounded in-memory store per app.
   */
  store?: McpSessionStore;
  /** Most sessions the default in-memory store holds. */
  maxSessions?: number;
  /**
   * Most sessions one client holds (in memory or in Durable Objects); default 100, or the binding
   * `EDGEGYM_MCP_SESSIONS_PER_CLIENT` where the store is the Durable Object one.
   */
  maxSessionsPerClient?: number;
};

/**
 * Who is calling, named per request by the host that accepted the connection (its peer's address on
 * Node, the hub's caller key), so a client cannot choose it. Without a name, `cf-connecting-ip`,
 * which Cloudflare sets on every request a Worker receives; without either, only the store's bound
 * applies. Kept on the request itself: a new bindings object per request would miss every cache
 * keyed by them (the env's keys and content hash), and a WeakMap entry per request costs a Node host
 * more than a property does (this runs for every request it serves, not only MCP's).
 */
const CLIENT = Symbol("edgegym.mcpClient");
type Named = Request & { [CLIENT]?: string };

export function setMcpClient(request: Request, client: string): void {
  (request as Named)[CLIENT] = client;
}

const PER_CLIENT_BINDING = "EDGEGYM_MCP_SESSIONS_PER_CLIENT";

/** The `initialize` capability under which a client may choose the task (instead of query parameters). */
export const TASK_CAPABILITY = "edgegym/task";

const SESSION_HEADER = "mcp-session-id";

/**
 * `<env base>/mcp`: the MCP Streamable HTTP transport (JSON responses, no server-initiated stream).
 * `initialize` starts an episode and answers with a fresh `Mcp-Session-Id`; later requests find the
 * episode's current token in the store under that id. The SDK's server and transport run per request,
 * so any instance that reaches the store serves any session. Requests in the 2026-07-28 revision's
 * envelope (`server/discover` first) go to the stateless server, which keeps nothing.
 */
export function createMcpHandler(
  env: Environment,
  options: McpOptions = {},
): (request: Request, runtime: EnvRuntime) => Promise<Response> {
  const now = options.now ?? Date.now;
  const memory = options.store ?? new MemorySessionStore(options.maxSessions, options.maxSessionsPerClient);
  let listed: { tools: Tool[]; finalAnswerTool: string | undefined } | undefined;
  const stateless = statelessMcpHandler(env, now);

  return async (request, runtime) => {
    const perClient =
      options.maxSessionsPerClient ??
      positive(runtime.bindings[PER_CLIENT_BINDING]) ??
      DEFAULT_MAX_SESSIONS_PER_CLIENT;
    const store = options.store ?? durableSessionStore(runtime.bindings, perClient) ?? memory;
    // Keys carry the env's name: a store may be shared by several envs (a host's processes), and one
    // env's session id must not reach another env's episode.
    const key = (id: string) => `${env.name}/${id}`;
    if (request.method === "DELETE") {
      const id = request.headers.get(SESSION_HEADER);
      if (!id || !(await store.delete(key(id)))) return rpcError(null, -32001, "Session not found", 404);
      return new Response(null, { status: 200 });
    }
    if (request.method !== "POST") {
      // No server-initiated messages: the spec's answer to GET is then 405.
      return rpcError(null, -32000, "Method not allowed: this server answers POST (and DELETE)", 405, {
        allow: "POST, DELETE",
      });
    }
    let body: unknown;
    try {
      body = JSON.parse(await readText(request, MAX_BODY_BYTES));
    } catch (e) {
      if (e instanceof EdgegymError) throw e;
      return rpcError(null, ErrorCode.ParseError, "Parse error: the body is not JSON", 400);
    }
    if (!(await isLegacyRequest(request, body))) {
      if (!isJsonContentType(request.headers.get("content-type"))) {
        return rpcError(null, ErrorCode.InvalidRequest, "Unsupported Media Type: send application/json", 415);
      }
      return stateless(request, body, runtime);
    }
    listed ??= mcpTools(env);

    let sessionId: string;
    let episode: McpEpisode | undefined;
    const messages = Array.isArray(body) ? body : [body];
    const init = messages.find(isInitializeRequest) as
      | (InitializeRequest & { id: string | number })
      | undefined;
    if (init) {
      if (messages.length > 1) {
        return rpcError(
          null,
          ErrorCode.InvalidRequest,
          "Invalid Request: initialize must be sent alone",
          400,
        );
      }
      const started = await startEpisode(env, request, init.params.capabilities, runtime, now());
      if (!started.ok) return rpcError(init.id, ErrorCode.InvalidParams, started.error, 200);
      sessionId = crypto.randomUUID();
      episode = started.episode;
    } else {
      const id = request.headers.get(SESSION_HEADER);
      if (!id) {
        return rpcError(
          null,
          ErrorCode.InvalidRequest,
          "Bad Request: Mcp-Session-Id header is required (send initialize first)",
          400,
        );
      }
      episode = id.length <= 128 ? await store.get(key(id), now()) : undefined;
      if (!episode) {
        return rpcError(
          null,
          -32001,
          "Session not found: it expired or never existed; initialize a new session",
          404,
        );
      }
      sessionId = id;
    }

    const server = episodeServer({ env, ...listed, store, storeKey: key(sessionId), episode, runtime, now });
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    await server.connect(transport);
    let res: Response;
    try {
      res = await transport.handleRequest(request, { parsedBody: body });
    } finally {
      await server.close();
    }
    const headers = new Headers(res.headers);
    let resBody: BodyInit | null = res.body;
    if (init) {
      // The session exists only once the SDK accepted the initialize: a refused one (406 for its
      // Accept, 415, …) leaves nothing behind and names no session.
      const text = await res.text();
      resBody = text;
      if (res.status !== 200 || !isResult(text)) return new Response(text, { status: res.status, headers });
      refuse(await store.create(key(sessionId), episode, now(), clientOf(request)));
    }
    headers.set(SESSION_HEADER, sessionId);
    return new Response(resBody, { status: res.status, headers });
  };
}

function clientOf(request: Request): string | undefined {
  return (request as Named)[CLIENT] ?? request.headers.get("cf-connecting-ip") ?? undefined;
}

/** A refused admission as the error the client sees: 429 for its own bound, 503 for the store's. */
function refuse(admission: Admission): void {
  if (admission.ok) return;
  const retryAfter = Math.max(1, Math.ceil(admission.retryAfterMs / 1000));
  if (admission.reason === "client") {
    throw new EdgegymError(
      "rate_limited",
      `this client holds ${admission.limit} open MCP sessions, the most it may; finish or DELETE one, or retry when one expires`,
      { retryAfter },
    );
  }
  throw new EdgegymError(
    "at_capacity",
    `this server holds ${admission.limit} open MCP sessions, the most it may; retry when one expires`,
    { retryAfter },
  );
}

function isResult(text: string): boolean {
  try {
    const parsed = JSON.parse(text) as { result?: unknown };
    return typeof parsed === "object" && parsed !== null && parsed.result !== undefined;
  } catch {
    return false;
  }
}

function positive(value: unknown): number | undefined {
  const n = Number(value);
  return typeof value === "string" && Number.isInteger(n) && n > 0 ? n : undefined;
}

type Started = { ok: true; episode: McpEpisode } | { ok: false; error: string };

/** Starts the episode the client chose: query parameters, overridden by the initialize capability. */
async function startEpisode(
  env: Environment,
  request: Request,
  capabilities: { experimental?: Record<string, unknown> } | undefined,
  runtime: EnvRuntime,
  now: number,
): Promise<Started> {
  const query = new URL(request.url).searchParams;
  const fromQuery: Record<string, unknown> = {};
  for (const key of ["split", "index", "seed"] as const) {
    const v = query.get(key);
    if (v !== null) fromQuery[key] = key === "split" ? v : Number(v);
  }
  const fromInit = capabilities?.experimental?.[TASK_CAPABILITY];
  const started = await startChosenTask(
    env,
    { ...fromQuery, ...(isObject(fromInit) ? fromInit : {}) },
    runtime,
    now,
  );
  if (!started.ok) return started;
  const { start: s, system, user } = started.value;
  return {
    ok: true,
    episode: {
      token: s.session,
      step: 0,
      done: false,
      episodeId: s.episodeId,
      task: s.task,
      system,
      user,
      return: 0,
      expiresAt: now + env.limits.sessionTtlSeconds * 1000,
    },
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function rpcError(
  id: string | number | null,
  code: number,
  message: string,
  status: number,
  headers: Record<string, string> = {},
): Response {
  return Response.json({ jsonrpc: "2.0", id, error: { code, message } }, { status, headers });
}
