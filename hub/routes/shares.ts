import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import { CreateShare, EnvParams, Share, Slug } from "../../shared/registry.js";
import { requireTeam } from "../auth/middleware.js";
import { hubDb } from "../db.js";
import type { AppEnv } from "../env.js";
import { ownedEnv, shareEnv, unshareEnv } from "../registry/shares.js";
import { body, json, problems, routeApp } from "../route-app.js";

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
async function ownedEnvOf(c: Context<AppEnv>, owner: string, name: string) {
  const { team } = requireTeam(c.get("principal"), "publish");
  const db = hubDb(c.env);
  return { db, env: await ownedEnv(db, team, owner, name) };
}

/** `/v1/envs/{owner}/{name}/shares`: the owner team shares an env with other teams. */
export const shareRoutes = routeApp()
  .openapi(share, async (c) => {
    const { owner, name } = c.req.valid("param");
    const { team, role } = c.req.valid("json");
    const { db, env } = await ownedEnvOf(c, owner, name);
    return c.json(await shareEnv(db, env, team, role, c.var.now()), 201);
  })
  .openapi(unshare, async (c) => {
    const { owner, name, team } = c.req.valid("param");
    const { db, env } = await ownedEnvOf(c, owner, name);
    await unshareEnv(db, env, team);
    return c.body(null, 204);
  });
