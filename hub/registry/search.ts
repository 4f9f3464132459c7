import { and, asc, desc, eq, gt, type SQL, sql } from "drizzle-orm";
import { integer, sqliteTable } from "drizzle-orm/sqlite-core";
import { hubEnvs } from "../../shared/db/schema.js";
import type { HubDb } from "../db.js";
import { visibleTo } from "./access.js";
import { envSummary, latestByEnv } from "./resolve.js";

/** The FTS5 index (custom migration 0005); declared here for queries only, not in the drizzle schema. */
const envsFts = sqliteTable("hub_envs_fts", { rowid: integer("rowid").notNull() });

/** FTS5 query from free text: each word is a quoted prefix term, all required, so no syntax leaks through. */
export function ftsQuery(q: string): string | null {
  const words = q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.length === 0 ? null : words.map((w) => `"${w}"*`).join(" ");
}

export type EnvQuery = {
  q?: string | undefined;
  tag?: string | undefined;
  owner?: string | undefined;
  visibility?: "public" | "private" | undefined;
  cursor?: string | undefined;
  limit: number;
};

/**
 * The envs `team` may see that match the query, one page in id order: `GET /v1/envs` and the web
 * hub's search both answer from here.
 */
export async function searchEnvs(db: HubDb, team: string | null, q: EnvQuery) {
  const where: SQL[] = [visibleTo(team)];
  if (q.owner) where.push(eq(hubEnvs.owner, q.owner));
  // Unary `+` keeps SQLite from a multi-index OR + sort: it walks ids from the cursor and stops early.
  if (q.visibility) where.push(sql`+${hubEnvs.visibility} = ${q.visibility}`);
  if (q.tag) where.push(sql`(' ' || ${hubEnvs.tags} || ' ') like ${`% ${q.tag} %`}`);
  const match = q.q ? ftsQuery(q.q) : null;
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
  return {
    envs: page.map((e) => envSummary(e, latest.get(e.id) ?? null)),
    nextCursor: rows.length > q.limit && last ? String(last.id) : null,
  };
}

/** The most recently updated envs `team` may see (the web hub's front page). */
export async function recentEnvs(db: HubDb, team: string | null, limit: number) {
  const rows = await db
    .select()
    .from(hubEnvs)
    .where(visibleTo(team))
    .orderBy(desc(hubEnvs.updatedAt), desc(hubEnvs.id))
    .limit(limit);
  const latest = await latestByEnv(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((e) => envSummary(e, latest.get(e.id) ?? null));
}
