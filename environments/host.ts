import { Hono } from "hono";
import { problem } from "../shared/errors.js";
import { errorResponse, problemResponse } from "../shared/http.js";
import { builtinEnvironments } from "./builtin.js";
import { type AppOptions, createEnvironmentApp, type Environment } from "./kit/index.js";

type HostEnv = { Bindings: Record<string, unknown> };

/** One app serving each environment at `/envs/<name>/v1/...`, plus an index at `/envs`. */
export function createEnvironmentsHost(
  environments: readonly Environment[] = builtinEnvironments,
  options: AppOptions = {},
): Hono<HostEnv> {
  const host = new Hono<HostEnv>();
  host.get("/envs", (c) =>
    c.json({ environments: environments.map((e) => ({ name: e.name, version: e.version })) }),
  );
  for (const env of environments) host.route(`/envs/${env.name}`, createEnvironmentApp(env, options));
  host.get("/healthz", (c) => c.json({ ok: true }));
  host.notFound((c) => problemResponse(problem("not_found", `no route ${c.req.method} ${c.req.path}`)));
  host.onError((e) => errorResponse(e));
  return host;
}
