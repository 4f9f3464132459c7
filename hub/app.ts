import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import { setMcpClient } from "../environments/kit/mcp/handler.js";
import { EdgegymError, problem, toProblem } from "../shared/errors.js";
import { bodyTooLarge, MAX_BODY_BYTES, problemResponse } from "../shared/http.js";
import { authenticate } from "./auth/middleware.js";
import type { AppEnv } from "./env.js";
import { GATEWAY_PREFIX, isGatewayPath } from "./gateway-path.js";
import { dataOnly } from "./gateway-response.js";
import { PUBLISH_MAX_BODY_BYTES } from "./hosted/bundle.js";
import { refuseLoops } from "./loop-guard.js";
import { callerKey, rateLimit } from "./rate-limit.js";
import { builtinHost } from "./registry/upstream.js";
import { provideDeps, validationHook } from "./route-app.js";
import { envUpdateRoutes } from "./routes/env-update.js";
import { envRoutes } from "./routes/envs.js";
import { episodeRoutes } from "./routes/eval-episodes.js";
import { evalStepRoutes } from "./routes/eval-step.js";
import { trajectoryRoutes } from "./routes/eval-trajectories.js";
import { evalRoutes } from "./routes/evals.js";
import { gatewayRoutes } from "./routes/gateway.js";
import { gatewayMcpRoutes } from "./routes/gateway-mcp.js";
import { gatewayOpenEnvRoutes } from "./routes/gateway-openenv.js";
import { leaderboardRoutes } from "./routes/leaderboard.js";
import { shareRoutes } from "./routes/shares.js";
import { teamRoutes } from "./routes/teams.js";
import { versionRoutes } from "./routes/versions.js";
import { SlidingWindow } from "./sliding-window.js";
import { registerReference } from "./web/reference.js";
import { webApp } from "./web/routes.js";

export type HubOptions = {
  /** Clock in ms; tests move it to expire tokens. */
  now?: () => number;
  /** How external env endpoints are fetched; tests route it to the worker itself. */
  fetch?: (request: Request) => Promise<Response>;
};

export type HubApp = OpenAPIHono<AppEnv>;

/** The built-ins' MCP endpoints at the hub's own `/envs`. */
const ENVS_MCP_PATH = "/envs/:name/mcp";

/**
 * The `/v1` API: each hub/routes file is a sub-app, mounted here in this order (the order routes are
 * matched in). Its type, `HubApi`, is what the typed client (`hc<HubApi>`) is built from.
 */
function mountApi(app: HubApp) {
  return app
    .route("/", teamRoutes)
    .route("/", envRoutes)
    .route("/", envUpdateRoutes)
    .route("/", versionRoutes)
    .route("/", shareRoutes)
    .route("/", gatewayRoutes)
    .route("/", gatewayMcpRoutes)
    .route("/", evalRoutes)
    .route("/", episodeRoutes)
    .route("/", evalStepRoutes)
    .route("/", trajectoryRoutes)
    .route("/", leaderboardRoutes)
    .route("/", gatewayOpenEnvRoutes);
}

const PUBLISH_PATH = /^\/v1\/envs\/[^/]+\/[^/]+\/versions$/;

export type HubApi = ReturnType<typeof mountApi>;

/**
 * The hub: the `/v1` API (teams, tokens, registry, sharing, gateway, evals, leaderboards), its OpenAPI
 * document and reference page, and the built-in environments at `/envs/<name>`.
 */
export function createHubApp(options: HubOptions = {}): HubApp {
  const now = options.now ?? Date.now;
  const upstreamFetch = options.fetch ?? ((r: Request) => fetch(r));
  const app: HubApp = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const window = new SlidingWindow();

  app.use("*", requestId(), provideDeps({ now, fetch: upstreamFetch, window }));
  // A publish may carry a hosted bundle (megabytes of modules); every other body is small.
  const limit = (maxSize: number) =>
    bodyLimit({
      maxSize,
      onError: () => {
        throw bodyTooLarge(maxSize);
      },
    });
  const small = limit(MAX_BODY_BYTES);
  const publish = limit(PUBLISH_MAX_BODY_BYTES);
  app.use("/v1/*", (c, next) =>
    (c.req.method === "POST" && PUBLISH_PATH.test(c.req.path) ? publish : small)(c, next),
  );
  // What the gateway and the built-ins answer is data on the pages' origin, never a page.
  app.use(`${GATEWAY_PREFIX}/*`, dataOnly());
  app.use("/envs/*", dataOnly());
  app.use("/v1/*", refuseLoops, authenticate(now), rateLimit(window, now, isGatewayPath));
  mountApi(app);

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer" });
  app.doc31("/v1/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "edgegym hub",
      version: "1.0.0",
      description: "Registry, gateway and evaluation API for edgegym/v1 environments.",
    },
    security: [{ bearer: [] }],
  });
  registerReference(app);

  const host = builtinHost();
  const envs = (c: Context<AppEnv>) => host.fetch(c.req.raw, c.env);
  app.all("/envs", envs);
  // MCP holds state per session (a Durable Object each): the hub's rate limit applies, and the env
  // counts the caller's sessions against its per-client bound by the hub's caller key.
  app.use(ENVS_MCP_PATH, authenticate(now), rateLimit(window, now));
  app.all(ENVS_MCP_PATH, (c) => {
    setMcpClient(c.req.raw, callerKey(c));
    return envs(c);
  });
  app.all("/envs/*", envs);
  app.get("/healthz", (c) => c.json({ ok: true }));
  // The web hub's pages last: its `/<owner>/<name>` must not shadow the routes above.
  app.route("/", webApp());

  app.notFound((c) => respond(c, problem("not_found", `no route ${c.req.method} ${c.req.path}`)));
  app.onError((e, c) => {
    if (e instanceof HTTPException && !(e instanceof EdgegymError)) {
      const code =
        e.status === 400
          ? "invalid_json"
          : e.status === 413
            ? "body_too_large"
            : e.status === 415
              ? "unsupported_media_type"
              : "invalid_request";
      return respond(c, problem(code, e.message));
    }
    if (!(e instanceof EdgegymError)) console.error("hub: unhandled error", e);
    return respond(c, toProblem(e));
  });
  return app;
}

function respond(c: Context<AppEnv>, p: ReturnType<typeof problem>): Response {
  const id = c.get("requestId");
  return problemResponse(id ? { ...p, requestId: id } : p, id ? { "x-request-id": id } : {});
}
