import { Hono } from "hono";
import { EdgegymError } from "../../../shared/errors.js";
import { MAX_BODY_BYTES, parseWith, readBody, readText } from "../../../shared/http.js";
import { OpenEnvResetData, OpenEnvStepRequest } from "../../../shared/openenv.js";
import type { Environment } from "../define-environment.js";
import type { EnvRuntime } from "../types.js";
import { OpenEnvEpisode } from "./episode.js";
import { OpenEnvFault } from "./errors.js";
import { productionMcp } from "./production-mcp.js";
import { openEnvSchemas } from "./schemas.js";
import { appBindings, hostUpgrade } from "./socket.js";
import { answerSocketMessage } from "./socket-protocol.js";
import { DEFAULT_SOCKET_LIMITS, episodeSocket, type SocketLimits } from "./socket-session.js";
import { countOf, taskListingRoutes } from "./task-listing.js";
import { viewOfToken } from "./token-view.js";

export type OpenEnvOptions = Partial<SocketLimits> & {
  /** Most sockets this app holds open; beyond it, `CAPACITY_REACHED` and close. Default: no bound. */
  maxSockets?: number;
};

/** The header a stateless `GET /state` reads the episode's token from. */
export const SESSION_HEADER = "edgegym-session";

type AppEnv = { Bindings: Record<string, unknown> };

/**
 * OpenEnv's HTTP and WebSocket surface of one environment, beside edgegym/v1: `/ws` (one episode per
 * socket), `/health`, `/metadata`, `/schema`, `/state`, the stateless `/reset` and `/step` (the sealed
 * token travels in the bodies), `/num_tasks`, and the ORS task listing (`/list_environments`,
 * `/<env>/splits`, …). With `production`, also OpenEnv's production-mode
 * MCP dialect at `/mcp` (mounted under `<base>/openenv`, so `<base>/mcp` stays standard MCP).
 */
export function openEnvRoutes(
  env: Environment,
  now: () => number,
  options: OpenEnvOptions & { production?: boolean } = {},
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const limits: SocketLimits = { ...DEFAULT_SOCKET_LIMITS, ...options };
  const maxSockets = options.maxSockets ?? Number.POSITIVE_INFINITY;
  let sockets = 0;
  const runtime = (bindings: Record<string, unknown> | undefined): EnvRuntime => ({
    bindings: appBindings(bindings),
  });

  app.get("/health", (c) => c.json({ status: "healthy" }));

  app.get("/metadata", (c) =>
    c.json({
      name: env.name,
      description: env.definition.description,
      readme_content: null,
      version: env.version,
      author: null,
      documentation_url: null,
    }),
  );

  app.get("/schema", (c) => c.json(openEnvSchemas()));

  app.get("/num_tasks", async (c) => {
    const manifest = await env.manifest(runtime(c.env));
    const split = c.req.query("split") ?? "train";
    return c.json({ num_tasks: countOf(manifest, split), split, splits: manifest.splits });
  });

  app.get("/state", async (c) => {
    const token = c.req.header(SESSION_HEADER);
    const rt = runtime(c.env);
    const view = token ? await viewOfToken(env, token, rt, now()) : undefined;
    return c.json(new OpenEnvEpisode(env, rt, now, view).state());
  });

  app.post("/reset", async (c) => {
    // OpenEnv's reset body is optional: an empty body is `{}`.
    const text = await readText(c.req.raw, MAX_BODY_BYTES);
    let json: unknown = {};
    try {
      if (text.trim() !== "") json = JSON.parse(text);
    } catch {
      throw new EdgegymError("invalid_json", "the request body is not valid JSON");
    }
    const data = parseWith(OpenEnvResetData, json);
    return c.json(await http(() => new OpenEnvEpisode(env, runtime(c.env), now).reset(data)));
  });

  app.post("/step", async (c) => {
    const body = await readBody(c.req.raw, OpenEnvStepRequest);
    const fromMeta = (body.action.metadata as { session?: unknown } | undefined)?.session;
    const token = body.session ?? (typeof fromMeta === "string" ? fromMeta : undefined);
    if (!token) {
      throw new EdgegymError("invalid_request", "a stateless step needs the episode's token", {
        issues: [{ path: "session", message: "send the token from the last observation's metadata.session" }],
      });
    }
    const rt = runtime(c.env);
    const view = await viewOfToken(env, token, rt, now());
    return c.json(await http(() => new OpenEnvEpisode(env, rt, now, view).step(body.action)));
  });

  app.get("/ws", (c) => {
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket")
      throw new EdgegymError("bad_request", "GET /ws opens a WebSocket: send Upgrade: websocket");
    const upgrade = hostUpgrade(c.env);
    if (!upgrade)
      throw new EdgegymError("not_configured", "this host serves no WebSockets; use POST /reset and /step");
    const rt = runtime(c.env);
    const open = episodeSocket(
      () => {
        const episode = new OpenEnvEpisode(env, rt, now);
        return (text) => answerSocketMessage(episode, text);
      },
      limits,
      () => sockets--,
    );
    // Counted once open: a handshake that never completes holds nothing.
    return upgrade(c, (peer) => {
      if (sockets >= maxSockets) {
        const message = `this server holds ${maxSockets} sockets already; retry later`;
        peer.send(JSON.stringify({ type: "error", data: { message, code: "CAPACITY_REACHED" } }));
        peer.close(1013, "capacity reached");
        return { onMessage() {}, onClose() {} };
      }
      sockets++;
      return open(peer);
    });
  });

  app.route("/", taskListingRoutes(env, runtime));

  if (options.production) {
    const mcp = productionMcp(env, now);
    app.all("/mcp", (c) => mcp(c.req.raw, runtime(c.env)));
  }
  return app;
}

/** An episode call over HTTP: its faults become problems (422 for a bad request, 409 for a finished episode). */
async function http<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (!(e instanceof OpenEnvFault)) throw e;
    const { code, message, errors } = e.data;
    if (code === "SESSION_ERROR") throw new EdgegymError("episode_done", message);
    throw new EdgegymError("invalid_request", message, errors ? { issues: errors } : {});
  }
}
