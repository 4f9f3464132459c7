import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { EdgegymError, problem } from "../../shared/errors.js";
import { errorResponse, parseWith, problemResponse, readBody } from "../../shared/http.js";
import {
  BatchRequest,
  type BatchResponse,
  ExpertRequest,
  SessionRequest,
  StepRequest,
} from "../../shared/protocol.js";
import type { Environment } from "./define-environment.js";
import type { EnvRuntime } from "./types.js";

export const MAX_BODY_BYTES = 1024 * 1024;

export type AppOptions = {
  /** Clock in ms; tests move it to expire tokens. */
  now?: () => number;
  /**
   * Most requests this app works on at once; beyond it, 429 `rate_limited` with `Retry-After`, so an
   * overloaded instance sheds load instead of queueing without bound. Default: no limit.
   */
  maxInFlight?: number;
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

  const tooLarge = () =>
    problemResponse(problem("body_too_large", `request bodies are limited to ${MAX_BODY_BYTES} bytes`), {
      connection: "close",
    });
  const streamedLimit = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: tooLarge });
  // A declared length is checked from the header alone. Hono's bodyLimit touches `request.body` first,
  // which on @hono/node-server turns the lightweight request into a web stream and costs more than the
  // rest of a step; only bodies without a length go through it, counted as they stream in.
  app.use(async (c, next) => {
    const headers = c.req.raw.headers;
    const length = headers.get("content-length");
    if (length !== null && !headers.has("transfer-encoding")) {
      return Number(length) > MAX_BODY_BYTES ? tooLarge() : next();
    }
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    return streamedLimit(c, next);
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

  app.post("/v1/:op{step:batch}", async (c) => {
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

  app.notFound((c) => problemResponse(problem("not_found", `no route ${c.req.method} ${c.req.path}`)));
  app.onError((e) => errorResponse(e));
  return app;
}

const EMPTY: Record<string, unknown> = {};
