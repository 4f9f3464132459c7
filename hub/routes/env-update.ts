import { createRoute } from "@hono/zod-openapi";
import { asc, eq } from "drizzle-orm";
import { hubEnvs, hubVersions } from "../../shared/db/schema.js";
import { EdgegymError } from "../../shared/errors.js";
import { EnvDetail, EnvParams, UpdateEnv } from "../../shared/registry.js";
import { requireTeam } from "../auth/middleware.js";
import { hubDb } from "../db.js";
import { readableEnv } from "../registry/access.js";
import { envSummary, versionInfo } from "../registry/resolve.js";
import { forgetGatewayTargets } from "../registry/target.js";
import { latestOf } from "../registry/versions.js";
import { body, json, problems, routeApp } from "../route-app.js";

const updateEnv = createRoute({
  method: "patch",
  path: "/v1/envs/{owner}/{name}",
  tags: ["registry"],
  summary: "Change an environment's visibility, description, tags or readme (its owner team only)",
  request: { params: EnvParams, ...body(UpdateEnv) },
  responses: { 200: json(EnvDetail, "the environment"), ...problems(401, 403, 404, 422) },
});

/**
 * `PATCH /v1/envs/{owner}/{name}`. Only the owner team changes these: a team the env is shared with
 * (even with `publish`) may add versions but not make the env public or rewrite its description.
 */
export const envUpdateRoutes = routeApp().openapi(updateEnv, async (c) => {
  const { team } = requireTeam(c.get("principal"), "publish");
  const { owner, name } = c.req.valid("param");
  const b = c.req.valid("json");
  const db = hubDb(c.env);
  const { env, access } = await readableEnv(db, team, owner, name);
  if (access !== "owner")
    throw new EdgegymError("forbidden", `only team ${owner} may change ${owner}/${name}`);
  const set = {
    ...(b.visibility === undefined ? {} : { visibility: b.visibility }),
    ...(b.description === undefined ? {} : { description: b.description }),
    ...(b.tags === undefined ? {} : { tags: [...new Set(b.tags)].join(" ") }),
    ...(b.readme === undefined ? {} : { readme: b.readme }),
    updatedAt: new Date(c.var.now()),
  };
  await db.update(hubEnvs).set(set).where(eq(hubEnvs.id, env.id));
  // Visibility decides who the gateway lets through: this isolate must not serve a cached answer.
  if (b.visibility !== undefined) forgetGatewayTargets();
  const { env: fresh } = await readableEnv(db, team, owner, name);
  const versions = await db.query.hubVersions.findMany({
    where: eq(hubVersions.envId, env.id),
    orderBy: asc(hubVersions.createdAt),
  });
  return c.json(
    {
      ...envSummary(fresh, latestOf(versions)?.version ?? null),
      readme: fresh.readme,
      versions: versions.map(versionInfo),
    },
    200,
  );
});
