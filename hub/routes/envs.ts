import { createRoute } from "@hono/zod-openapi";
import { hubEnvs } from "../../shared/db/schema.js";
import { EdgegymError } from "../../shared/errors.js";
import { CreateEnv, EnvDetail, EnvList, EnvParams, ListEnvsQuery } from "../../shared/registry.js";
import { readerTeam, requireTeam } from "../auth/middleware.js";
import { hubDb, isUniqueViolation } from "../db.js";
import { envWithVersions } from "../registry/detail.js";
import { envSummary, versionInfoFor } from "../registry/resolve.js";
import { searchEnvs } from "../registry/search.js";
import { body, json, problems, routeApp } from "../route-app.js";

const createEnv = createRoute({
  method: "post",
  path: "/v1/envs",
  tags: ["registry"],
  summary: "Create an environment owned by the caller's team",
  request: body(CreateEnv),
  responses: { 201: json(EnvDetail, "the environment"), ...problems(401, 403, 409, 422) },
});

const getEnv = createRoute({
  method: "get",
  path: "/v1/envs/{owner}/{name}",
  tags: ["registry"],
  summary: "An environment with its versions (404 unless the caller may see it)",
  request: { params: EnvParams },
  responses: { 200: json(EnvDetail), ...problems(401, 403, 404) },
});

const listEnvs = createRoute({
  method: "get",
  path: "/v1/envs",
  tags: ["registry"],
  summary: "List and search visible environments (FTS5 over name, description, tags)",
  request: { query: ListEnvsQuery },
  responses: { 200: json(EnvList), ...problems(401, 403, 422) },
});

/** `/v1/envs`: create, read and search environments. */
export const envRoutes = routeApp()
  .openapi(createEnv, async (c) => {
    const { team } = requireTeam(c.get("principal"), "publish");
    const b = c.req.valid("json");
    if (b.owner !== team)
      throw new EdgegymError("forbidden", `team ${team} may not create envs for ${b.owner}`);
    const t = new Date(c.var.now());
    const row = {
      owner: b.owner,
      name: b.name,
      visibility: b.visibility,
      description: b.description ?? "",
      tags: [...new Set(b.tags ?? [])].join(" "),
      readme: b.readme ?? "",
      createdAt: t,
      updatedAt: t,
    };
    try {
      await hubDb(c.env).insert(hubEnvs).values(row);
    } catch (e) {
      if (isUniqueViolation(e)) throw new EdgegymError("conflict", `${b.owner}/${b.name} already exists`);
      throw e;
    }
    return c.json({ ...envSummary({ ...row, id: 0 }, null), readme: row.readme, versions: [] }, 201);
  })
  .openapi(getEnv, async (c) => {
    const team = readerTeam(c.get("principal"));
    const { owner, name } = c.req.valid("param");
    const { env, access, versions, latest } = await envWithVersions(hubDb(c.env), team, owner, name);
    return c.json(
      {
        ...envSummary(env, latest?.version ?? null),
        readme: env.readme,
        versions: versions.map((v) => versionInfoFor(v, access)),
      },
      200,
    );
  })
  .openapi(listEnvs, async (c) => {
    const team = readerTeam(c.get("principal"));
    const q = c.req.valid("query");
    return c.json(await searchEnvs(hubDb(c.env), team, q), 200);
  });
