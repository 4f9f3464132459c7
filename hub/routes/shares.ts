import { createRoute } from "@hono/zod-openapi";
import type { HubApp, RouteDeps } from "../app.js";
import { requireTeam } from "../auth/middleware.js";
import { hubDb } from "../db.js";
import { ownedEnv, shareEnv, unshareEnv } from "../registry/shares.js";
import { body, CreateShare, EnvParams, json, problems, Share, Slug } from "../schemas.js";

const share = createRoute({
  method: "post",
  path: "/v1/envs/{owner}/{name}/shares",
  tags: ["sharing"],
  summary: "Grant another team read or publish on an env (owner team only); re-sharing changes the role",
  request: { params: EnvParams, ...body(CreateShare) },
  responses: { 201: json(Share, "the share"), ...problems(401, 403, 404, 422) },
});

const unshare = createRoute({
  method: "delete",
  path: "/v1/envs/{owner}/{name}/shares/{team}",
  tags: ["sharing"],
  summary: "Revoke a share",
  request: { params: EnvParams.extend({ team: Slug }) },
  responses: { 204: { description: "revoked" }, ...problems(401, 403, 404) },
});

/** The caller's team and the env it owns (403 when it only sees it, 404 when it can't). */
async function ownedEnvOf(c: Parameters<Parameters<HubApp["openapi"]>[1]>[0], owner: string, name: string) {
  const { team } = requireTeam(c.get("principal"), "publish");
  const db = hubDb(c.env);
  return { db, env: await ownedEnv(db, team, owner, name) };
}

export function registerShareRoutes(app: HubApp, { now }: RouteDeps): void {
  app.openapi(share, async (c) => {
    const { owner, name } = c.req.valid("param");
    const { team, role } = c.req.valid("json");
    const { db, env } = await ownedEnvOf(c, owner, name);
    return c.json(await shareEnv(db, env, team, role, now()), 201);
  });

  app.openapi(unshare, async (c) => {
    const { owner, name, team } = c.req.valid("param");
    const { db, env } = await ownedEnvOf(c, owner, name);
    await unshareEnv(db, env, team);
    return c.body(null, 204);
  });
}
