import { and, eq, sql } from "drizzle-orm";
import { hubEnvs, hubVersions } from "../../shared/db/schema.js";
import { EdgegymError } from "../../shared/errors.js";
import { HOT_PATH_TTL_MS, TtlCache } from "../cache.js";
import type { HubDb } from "../db.js";
import { type Upstream, upstreamOf } from "./upstream.js";
import { latestOf } from "./versions.js";

/**
 * What the gateway needs per call, in one query: whether `team` may read `owner/name` (owner, share
 * or public) and the version `ref` names (`latest` or exact), without the stored manifest (only its `stepTimeoutMs`). The same 404
 * covers unknown and invisible envs. Successes are reused for `HOT_PATH_TTL_MS`.
 */
export async function gatewayTarget(
  db: HubDb,
  team: string | null,
  owner: string,
  name: string,
  ref: string,
  now: number,
): Promise<Target> {
  const key = `${team ?? ""}|${owner}/${name}@${ref}`;
  const cached = targets.get(key, now);
  if (cached) return cached;
  const target = await lookup(db, team, owner, name, ref);
  targets.set(key, target, now);
  return target;
}

/** `stepTimeoutMs` is the stored manifest's: each gateway call's deadline is built from it. */
type Target = { version: string; upstream: Upstream; stepTimeoutMs: number | null };

/** Resolved gateway targets per (team, env, ref); only successes are kept. */
const targets = new TtlCache<Target>(HOT_PATH_TTL_MS);

/** Drops cached targets: called on publish, yank and share changes, so this isolate sees them at once. */
export function forgetGatewayTargets(): void {
  targets.clear();
}

async function lookup(
  db: HubDb,
  team: string | null,
  owner: string,
  name: string,
  ref: string,
): Promise<Target> {
  const role =
    team === null
      ? sql<string | null>`null`
      : sql<string | null>`(select role from hub_shares where env_id = ${hubEnvs.id} and team = ${team})`;
  const join =
    ref === "latest"
      ? eq(hubVersions.envId, hubEnvs.id)
      : and(eq(hubVersions.envId, hubEnvs.id), eq(hubVersions.version, ref));
  const rows = await db
    .select({
      visibility: hubEnvs.visibility,
      role,
      envId: hubEnvs.id,
      version: hubVersions.version,
      prerelease: hubVersions.prerelease,
      yankedAt: hubVersions.yankedAt,
      endpoint: hubVersions.endpoint,
      builtin: hubVersions.builtin,
      bundleHash: hubVersions.bundleHash,
      stepTimeoutMs: sql<number | null>`json_extract(${hubVersions.manifest}, '$.limits.stepTimeoutMs')`,
    })
    .from(hubEnvs)
    .leftJoin(hubVersions, join)
    .where(and(eq(hubEnvs.owner, owner), eq(hubEnvs.name, name)));
  const first = rows[0];
  const readable = first && (first.visibility === "public" || owner === team || first.role !== null);
  if (!readable) throw new EdgegymError("not_found", `no environment ${owner}/${name}`);
  const versions = rows.flatMap((r) =>
    r.version === null || r.prerelease === null
      ? []
      : [{ ...r, version: r.version, prerelease: r.prerelease }],
  );
  const chosen = ref === "latest" ? latestOf(versions) : (versions[0] ?? null);
  if (!chosen) throw new EdgegymError("not_found", `${owner}/${name} has no version ${ref}`);
  return { version: chosen.version, upstream: upstreamOf(chosen), stepTimeoutMs: chosen.stepTimeoutMs };
}
