import { and, eq, type SQL, sql } from "drizzle-orm";
import { hubEnvs, hubShares } from "../../shared/db/schema.js";
import { EdgegymError } from "../../shared/errors.js";
import type { HubDb } from "../db.js";

export type EnvRow = typeof hubEnvs.$inferSelect;
export type Access = "owner" | "publish" | "read";

/** SQL predicate: envs `team` may see (public, its own, shared with it); anonymous sees public only. */
export function visibleTo(team: string | null): SQL {
  // Unary `+` on the indexed columns: see the list route (scan ids in order instead of OR-ing indexes).
  if (team === null) return sql`+${hubEnvs.visibility} = 'public'`;
  return sql`(+${hubEnvs.visibility} = 'public' or +${hubEnvs.owner} = ${team} or ${hubEnvs.id} in (select ${hubShares.envId} from ${hubShares} where ${hubShares.team} = ${team}))`;
}

/** The strongest right `team` has on `env`, or null when it may not even see it. */
export async function accessOf(db: HubDb, team: string | null, env: EnvRow): Promise<Access | null> {
  if (team !== null && env.owner === team) return "owner";
  if (team !== null) {
    const share = await db.query.hubShares.findFirst({
      where: and(eq(hubShares.envId, env.id), eq(hubShares.team, team)),
    });
    if (share) return share.role;
  }
  return env.visibility === "public" ? "read" : null;
}

/**
 * The env if `team` may read it. Unknown and invisible envs give the same 404, so a private env's
 * existence never leaks.
 */
export async function readableEnv(
  db: HubDb,
  team: string | null,
  owner: string,
  name: string,
): Promise<{ env: EnvRow; access: Access }> {
  const env = await db.query.hubEnvs.findFirst({
    where: and(eq(hubEnvs.owner, owner), eq(hubEnvs.name, name)),
  });
  const access = env ? await accessOf(db, team, env) : null;
  if (!env || !access) throw new EdgegymError("not_found", `no environment ${owner}/${name}`);
  return { env, access };
}

/** The env if `team` may publish to it: 404 when invisible, 403 when only readable. */
export async function publishableEnv(db: HubDb, team: string, owner: string, name: string): Promise<EnvRow> {
  const { env, access } = await readableEnv(db, team, owner, name);
  if (access === "read")
    throw new EdgegymError("forbidden", `team ${team} may not publish to ${owner}/${name}`);
  return env;
}
