import { and, eq, inArray } from "drizzle-orm";
import { hubVersions } from "../../shared/db/schema.js";
import { EdgegymError } from "../../shared/errors.js";
import type { HostedInfo } from "../../shared/hosted.js";
import type { Manifest, PublicJwk } from "../../shared/protocol.js";
import type { HubDb } from "../db.js";
import type { Access, EnvRow } from "./access.js";
import { latestOf } from "./versions.js";

export type VersionRow = typeof hubVersions.$inferSelect;

/**
 * The version `ref` names: `latest` resolves to the highest stable unyanked version; an exact version
 * is found even when yanked, so old runs and pinned clients keep working.
 */
export async function resolveVersion(db: HubDb, env: EnvRow, ref: string): Promise<VersionRow> {
  if (ref === "latest") {
    const latest = latestOf(await db.query.hubVersions.findMany({ where: eq(hubVersions.envId, env.id) }));
    if (!latest) throw new EdgegymError("not_found", `${env.owner}/${env.name} has no stable version`);
    return latest;
  }
  const row = await db.query.hubVersions.findFirst({
    where: and(eq(hubVersions.envId, env.id), eq(hubVersions.version, ref)),
  });
  if (!row) throw new EdgegymError("not_found", `${env.owner}/${env.name} has no version ${ref}`);
  return row;
}

/** Latest version per env id, for lists. */
export async function latestByEnv(db: HubDb, envIds: number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  if (envIds.length === 0) return out;
  const rows = await db
    .select({
      envId: hubVersions.envId,
      version: hubVersions.version,
      prerelease: hubVersions.prerelease,
      yankedAt: hubVersions.yankedAt,
    })
    .from(hubVersions)
    .where(inArray(hubVersions.envId, envIds));
  const groups = new Map<number, (typeof rows)[number][]>();
  for (const r of rows) groups.set(r.envId, [...(groups.get(r.envId) ?? []), r]);
  for (const [id, vs] of groups) {
    const latest = latestOf(vs);
    if (latest) out.set(id, latest.version);
  }
  return out;
}

export function versionInfo(v: VersionRow) {
  return {
    version: v.version,
    prerelease: v.prerelease,
    yanked: v.yankedAt !== null,
    source: v.builtin ? ("builtin" as const) : v.bundleHash ? ("hosted" as const) : ("endpoint" as const),
    endpoint: v.endpoint,
    builtin: v.builtin,
    contentHash: v.contentHash,
    createdAt: v.createdAt.toISOString(),
  };
}

/**
 * `versionInfo` as a caller with `access` may see it: readers (a `read` share, anyone on a public env)
 * get no endpoint, since the gateway is their way in and the endpoint of a private env is the owner's.
 */
export function versionInfoFor(v: VersionRow, access: Access) {
  const info = versionInfo(v);
  return access === "read" ? { ...info, endpoint: null } : info;
}

/** `GET …/versions/{version}`: the version as `access` may see it, its manifest, and a hosted bundle's facts. */
export function versionDetailFor(v: VersionRow, access: Access) {
  return {
    ...versionInfoFor(v, access),
    manifest: manifestOf(v),
    hosted: (v.hosted as HostedInfo | null) ?? null,
  };
}

export const manifestOf = (v: VersionRow): Manifest => v.manifest as Manifest;
export const publicKeyOf = (v: VersionRow): PublicJwk => v.publicKey as PublicJwk;

export function envSummary(e: EnvRow, latest: string | null) {
  return {
    owner: e.owner,
    name: e.name,
    visibility: e.visibility,
    description: e.description,
    tags: e.tags ? e.tags.split(" ") : [],
    latest,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}
