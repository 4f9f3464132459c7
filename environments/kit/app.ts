import { Hono } from "hono";
import { EdgegymError, problem } from "../../shared/errors.js";
import {
  bodyTooLarge,
  errorResponse,
  MAX_BODY_BYTES,
  parseWith,
  problemResponse,
  readBody,
} from "../../shared/http.js";
import {
  BatchRequest,
  type BatchResponse,
  ExpertRequest,
  SessionRequest,
  StepRequest,
} from "../../shared/protocol.js";
import type { Environment } from "./define-environment.js";
import { createMcpHandler, type McpOptions } from "./mcp/handler.js";
import { type OpenEnvOptions, openEnvRoutes } from "./openenv/routes.js";
import type { EnvRuntime } from "./types.js";

export { MAX_BODY_BYTES };

export type AppOptions = {
  /** Clock in ms; tests move it to expire tokens. */
  now?: () => number;
  /**
   * Most requests this app works on at once; beyond it, 429 `rate_limited` with `Retry-After`, so an
   * overloaded instance sheds load instead of queueing without bound. Default: no limit.
   */
  maxInFlight?: number;
  /** The MCP endpoint's options (its session store); see docs/protocol.md, "MCP". */
  mcp?: McpOptions;
  /** OpenEnv's surface (`/ws`, `/reset`, `/step`, …): its socket limits; see docs/protocol.md, "OpenEnv". */
  openenv?: OpenEnvOptions;
};

type AppEnv = { Bindings: Record<string, unknown> };

/**
 * The edgegym/v1 HTTP surface of one environment. Bindings (`c.env`) carry the secrets, so the same
 * app runs on workerd, on Node through @hono/node-server, and in-process through `app.fetch`.
 */
export function createEnvironmentApp(env: Environment, options: AppOptions = {}): Hono<AppEnv> {
  const now = options.now ?? Date.now;
  const app = new Hono<AppEnv>();
  const runtime = (bindings: Record<string, unknown> | undefined): EnvRuntime => ({
    bindings: bindings ?? EMPTY,
  });

  const maxInFlight = options.maxInFlight ?? Number.POSITIVE_INFINITY;
  let inFlight = 0;
  if (Number.isFinite(maxInFlight)) {
    app.use(async (_c, next) => {
      if (inFlight >= maxInFlight) {
        throw new EdgegymError("rate_limited", `more than ${maxInFlight} requests in flight`, {
          retryAfter: 1,
        });
      }
      inFlight++;
      try {
        await next();
      } finally {
        inFlight--;
      }
    });
  }

  // A declared length over the limit is refused from the header alone, on every route; a body
  // without one is counted as it streams in by `readBody`, which every POST route reads through.
  app.use((c, next) => {
    const length = c.req.raw.headers.get("content-length");
    if (length !== null && Number(length) > MAX_BODY_BYTES) throw bodyTooLarge(MAX_BODY_BYTES);
    return next();
  });

  app.get("/v1/manifest", async (c) => c.json(await env.manifest(runtime(c.env))));

  app.post("/v1/sessions", async (c) => {
    const body = await readBody(c.req.raw, SessionRequest);
    return c.json(await env.startSession(body, runtime(c.env), now()), 201);
  });

  app.post("/v1/step", async (c) => {
    const body = await readBody(c.req.raw, StepRequest);
    return c.json(await env.step(body, runtime(c.env), now()));
  });

  // A literal path: a regex parameter here would drop a host of many envs from Hono's RegExpRouter
  // to its slower TrieRouter.
  app.post("/v1/step:batch", async (c) => {
    const { steps } = await readBody(c.req.raw, BatchRequest);
    const rt = runtime(c.env);
    const results: BatchResponse["results"] = await Promise.all(
      steps.map(async (item) => {
        try {
          return await env.step(parseWith(StepRequest, item), rt, now());
        } catch (e) {
          if (!(e instanceof EdgegymError)) console.error("edgegym: batch item failed", e);
          return { error: e instanceof EdgegymError ? e.toProblem() : problem("internal") };
        }
      }),
    );
    return c.json({ results });
  });

  app.post("/v1/expert", async (c) => {
    const body = await readBody(c.req.raw, ExpertRequest);
    return c.json(await env.expert(body.session, runtime(c.env), now()));
  });

  // The same episode as an MCP server (Streamable HTTP): one tools/call per step.
  const mcp = createMcpHandler(env, { now, ...options.mcp });
  app.all("/mcp", (c) => mcp(c.req.raw, runtime(c.env)));

  // The same episode as OpenEnv serves one, beside edgegym/v1; under /openenv too, with OpenEnv's
  // production-mode MCP dialect at /openenv/mcp, since /mcp is standard MCP.
  app.route("/", openEnvRoutes(env, now, options.openenv));
  app.route("/openenv", openEnvRoutes(env, now, { ...options.openenv, production: true }));

  app.notFound((c) => problemResponse(problem("not_found", `no route ${c.req.method} ${c.req.path}`)));
  app.onError((e) => errorResponse(e));
  return app;
}

const EMPTY: Record<string, unknown> = {};
