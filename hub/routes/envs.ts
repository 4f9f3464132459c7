import { createRoute } from "@hono/zod-openapi";
import { and, asc, eq, gt, type SQL, sql } from "drizzle-orm";
import { integer, sqliteTable } from "drizzle-orm/sqlite-core";
import { hubEnvs, hubVersions } from "../../shared/db/schema.js";
import { EdgegymError } from "../../shared/errors.js";
import type { HubApp, RouteDeps } from "../app.js";
import { readerTeam, requireTeam } from "../auth/middleware.js";
import { hubDb, isUniqueViolation } from "../db.js";
import { readableEnv, visibleTo } from "../registry/access.js";
import { envSummary, latestByEnv, versionInfo } from "../registry/resolve.js";
import { latestOf } from "../registry/versions.js";
import { body, CreateEnv, EnvDetail, EnvList, EnvParams, json, ListEnvsQuery, problems } from "../schemas.js";

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

/** The FTS5 index (custom migration 0005); declared here for queries only, not in the drizzle schema. */
const envsFts = sqliteTable("hub_envs_fts", { rowid: integer("rowid").notNull() });

/** FTS5 query from free text: each word is a quoted prefix term, all required, so no syntax leaks through. */
export function ftsQuery(q: string): string | null {
  const words = q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.length === 0 ? null : words.map((w) => `"${w}"*`).join(" ");
}

export function registerEnvRoutes(app: HubApp, { now }: RouteDeps): void {
  app.openapi(createEnv, async (c) => {
    const { team } = requireTeam(c.get("principal"), "publish");
    const b = c.req.valid("json");
    if (b.owner !== team)
      throw new EdgegymError("forbidden", `team ${team} may not create envs for ${b.owner}`);
    const t = new Date(now());
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
  });

  app.openapi(getEnv, async (c) => {
    const team = readerTeam(c.get("principal"));
    const { owner, name } = c.req.valid("param");
    const db = hubDb(c.env);
    const { env } = await readableEnv(db, team, owner, name);
    const versions = await db.query.hubVersions.findMany({
      where: eq(hubVersions.envId, env.id),
      orderBy: asc(hubVersions.createdAt),
    });
    const latest = latestOf(versions)?.version ?? null;
    return c.json(
      { ...envSummary(env, latest), readme: env.readme, versions: versions.map(versionInfo) },
      200,
    );
  });

  app.openapi(listEnvs, async (c) => {
    const team = readerTeam(c.get("principal"));
    const q = c.req.valid("query");
    const where: SQL[] = [visibleTo(team)];
    if (q.owner) where.push(eq(hubEnvs.owner, q.owner));
    // Unary `+` keeps SQLite from a multi-index OR + sort: it walks ids from the cursor and stops early.
    if (q.visibility) where.push(sql`+${hubEnvs.visibility} = ${q.visibility}`);
    if (q.tag) where.push(sql`(' ' || ${hubEnvs.tags} || ' ') like ${`% ${q.tag} %`}`);
    const match = q.q ? ftsQuery(q.q) : null;
    const db = hubDb(c.env);
    const cursor = Number(q.cursor ?? 0);
    // Text search walks the FTS5 matches in rowid (= id) order, so a page reads only ~limit matches.
    const rows = match
      ? (
          await db
            .select({ env: hubEnvs })
            .from(envsFts)
            .innerJoin(hubEnvs, eq(hubEnvs.id, envsFts.rowid))
            .where(and(sql`hub_envs_fts match ${match}`, gt(envsFts.rowid, cursor), ...where))
            .orderBy(asc(envsFts.rowid))
            .limit(q.limit + 1)
        ).map((r) => r.env)
      : await db
          .select()
          .from(hubEnvs)
          .where(and(gt(hubEnvs.id, cursor), ...where))
          .orderBy(asc(hubEnvs.id))
          .limit(q.limit + 1);
    const page = rows.slice(0, q.limit);
    const latest = await latestByEnv(
      db,
      page.map((r) => r.id),
    );
    const last = page.at(-1);
    return c.json(
      {
        envs: page.map((e) => envSummary(e, latest.get(e.id) ?? null)),
        nextCursor: rows.length > q.limit && last ? String(last.id) : null,
      },
      200,
    );
  });
}
