import { createRoute } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { hubShares, hubTeams } from "../../shared/db/schema.js";
import { EdgegymError } from "../../shared/errors.js";
import type { HubApp, RouteDeps } from "../app.js";
import { requireTeam } from "../auth/middleware.js";
import { hubDb } from "../db.js";
import { readableEnv } from "../registry/access.js";
import { forgetGatewayTargets } from "../registry/target.js";
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

/** Only the owning team manages shares; a team that can merely see the env gets 403, others 404. */
async function ownedEnv(c: Parameters<Parameters<HubApp["openapi"]>[1]>[0], owner: string, name: string) {
  const { team } = requireTeam(c.get("principal"), "publish");
  const db = hubDb(c.env);
  const { env, access } = await readableEnv(db, team, owner, name);
  if (access !== "owner")
    throw new EdgegymError("forbidden", `only ${owner} manages shares of ${owner}/${name}`);
  return { db, env };
}

export function registerShareRoutes(app: HubApp, { now }: RouteDeps): void {
  app.openapi(share, async (c) => {
    const { owner, name } = c.req.valid("param");
    const { team, role } = c.req.valid("json");
    const { db, env } = await ownedEnv(c, owner, name);
    if (team === owner) throw new EdgegymError("invalid_request", "an env can't be shared with its owner");
    if (!(await db.query.hubTeams.findFirst({ where: eq(hubTeams.name, team) }))) {
      throw new EdgegymError("not_found", `no team ${team}`);
    }
    const createdAt = new Date(now());
    await db
      .insert(hubShares)
      .values({ envId: env.id, team, role, createdAt })
      .onConflictDoUpdate({ target: [hubShares.envId, hubShares.team], set: { role } });
    forgetGatewayTargets();
    return c.json({ team, role, createdAt: createdAt.toISOString() }, 201);
  });

  app.openapi(unshare, async (c) => {
    const { owner, name, team } = c.req.valid("param");
    const { db, env } = await ownedEnv(c, owner, name);
    const gone = await db
      .delete(hubShares)
      .where(and(eq(hubShares.envId, env.id), eq(hubShares.team, team)))
      .returning();
    if (gone.length === 0) throw new EdgegymError("not_found", `${owner}/${name} is not shared with ${team}`);
    forgetGatewayTargets();
    return c.body(null, 204);
  });
}
