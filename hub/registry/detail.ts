import { asc, eq } from "drizzle-orm";
import { hubVersions } from "../../shared/db/schema.js";
import type { HubDb } from "../db.js";
import { readableEnv } from "./access.js";
import type { VersionRow } from "./resolve.js";
import { latestOf } from "./versions.js";

/**
 * An env `team` may read, with every version in publishing order and `@latest`: what
 * `GET /v1/envs/{owner}/{name}` and the web hub's env card show. Invisible envs are the same 404.
 */
export async function envWithVersions(db: HubDb, team: string | null, owner: string, name: string) {
  const { env, access } = await readableEnv(db, team, owner, name);
  const versions: VersionRow[] = await db.query.hubVersions.findMany({
    where: eq(hubVersions.envId, env.id),
    orderBy: asc(hubVersions.createdAt),
  });
  return { env, access, versions, latest: latestOf(versions) };
}
