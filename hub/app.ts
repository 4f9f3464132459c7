import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import { EdgegymError, problem, toProblem, zodIssues } from "../shared/errors.js";
import { problemResponse } from "../shared/http.js";
import { authenticate } from "./auth/middleware.js";
import type { AppEnv } from "./env.js";
import { refuseLoops } from "./loop-guard.js";
import { checkRateLimit, rateLimit } from "./rate-limit.js";
import { builtinHost } from "./registry/upstream.js";
import { registerEnvUpdateRoutes } from "./routes/env-update.js";
import { registerEnvRoutes } from "./routes/envs.js";
import { registerEvalRoutes } from "./routes/evals.js";
import { isGatewayPath, registerGatewayRoutes } from "./routes/gateway.js";
import { registerLeaderboardRoutes } from "./routes/leaderboard.js";
import { registerShareRoutes } from "./routes/shares.js";
import { registerTeamRoutes } from "./routes/teams.js";
import { registerVersionRoutes } from "./routes/versions.js";
import { SlidingWindow } from "./sliding-window.js";
import { registerReference } from "./web/reference.js";
import { webApp } from "./web/routes.js";

export const MAX_BODY_BYTES = 1024 * 1024;

export type HubOptions = {
  /** Clock in ms; tests move it to expire tokens. */
  now?: () => number;
  /** How external env endpoints are fetched; tests route it to the worker itself. */
  fetch?: (request: Request) => Promise<Response>;
};

export type HubApp = OpenAPIHono<AppEnv>;

/**
 * The hub: the `/v1` API (teams, tokens, registry, sharing, gateway, evals, leaderboards), its OpenAPI
 * document and reference page, and the built-in environments at `/envs/<name>`.
 */
export function createHubApp(options: HubOptions = {}): HubApp {
  const now = options.now ?? Date.now;
  const upstreamFetch = options.fetch ?? ((r: Request) => fetch(r));
  const app: HubApp = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        throw new EdgegymError("invalid_request", "the request does not match the schema", {
          issues: zodIssues(result.error),
        });
      }
    },
  });

  app.use("*", requestId());
  app.use(
    "/v1/*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new EdgegymError("body_too_large", `request bodies are limited to ${MAX_BODY_BYTES} bytes`);
      },
    }),
  );
  const window = new SlidingWindow();
  app.use("/v1/*", refuseLoops, authenticate(now), rateLimit(window, now, isGatewayPath));

  const deps = { now, fetch: upstreamFetch, limit: (c: Context<AppEnv>) => checkRateLimit(c, window, now()) };
  registerTeamRoutes(app, deps);
  registerEnvRoutes(app, deps);
  registerEnvUpdateRoutes(app, deps);
  registerVersionRoutes(app, deps);
  registerShareRoutes(app, deps);
  registerGatewayRoutes(app, deps);
  registerEvalRoutes(app, deps);
  registerLeaderboardRoutes(app, deps);

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
  app.all("/envs/*", envs);
  app.get("/healthz", (c) => c.json({ ok: true }));
  // The web hub's pages last: its `/<owner>/<name>` must not shadow the routes above.
  app.route("/", webApp(deps));

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

export type RouteDeps = {
  now: () => number;
  fetch: (request: Request) => Promise<Response>;
  /** The caller's rate limit, for routes that check it themselves (the gateway). */
  limit: (c: Context<AppEnv>) => Promise<void>;
};
