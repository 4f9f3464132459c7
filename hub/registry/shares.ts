import { and, asc, eq } from "drizzle-orm";
import { hubShares, hubTeams } from "../../shared/db/schema.js";
import { EdgegymError } from "../../shared/errors.js";
import type { HubDb } from "../db.js";
import { type EnvRow, readableEnv } from "./access.js";
import { forgetGatewayTargets } from "./target.js";

/**
 * Sharing rules, used by the API (`/v1/envs/{owner}/{name}/shares`) and the web hub's env card alike.
 */

/** Only the owning team manages shares; a team that can merely see the env gets 403, others 404. */
export async function ownedEnv(db: HubDb, team: string, owner: string, name: string): Promise<EnvRow> {
  const { env, access } = await readableEnv(db, team, owner, name);
  if (access !== "owner")
    throw new EdgegymError("forbidden", `only ${owner} manages shares of ${owner}/${name}`);
  return env;
}

/** Grants `team` a role on `env`; sharing again changes the role. */
export async function shareEnv(db: HubDb, env: EnvRow, team: string, role: "read" | "publish", now: number) {
  if (team === env.owner) throw new EdgegymError("invalid_request", "an env can't be shared with its owner");
  if (!(await db.query.hubTeams.findFirst({ where: eq(hubTeams.name, team) }))) {
    throw new EdgegymError("not_found", `no team ${team}`);
  }
  const createdAt = new Date(now);
  await db
    .insert(hubShares)
    .values({ envId: env.id, team, role, createdAt })
    .onConflictDoUpdate({ target: [hubShares.envId, hubShares.team], set: { role } });
  forgetGatewayTargets();
  return { team, role, createdAt: createdAt.toISOString() };
}

export async function unshareEnv(db: HubDb, env: EnvRow, team: string): Promise<void> {
  const gone = await db
    .delete(hubShares)
    .where(and(eq(hubShares.envId, env.id), eq(hubShares.team, team)))
    .returning();
  if (gone.length === 0)
    throw new EdgegymError("not_found", `${env.owner}/${env.name} is not shared with ${team}`);
  forgetGatewayTargets();
}

/** The teams `env` is shared with, by name. */
export function sharesOf(db: HubDb, env: EnvRow) {
  return db.query.hubShares.findMany({ where: eq(hubShares.envId, env.id), orderBy: asc(hubShares.team) });
}
