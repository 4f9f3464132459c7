import { and, eq } from "drizzle-orm";
import { hubEnvs, hubEvalRuns, hubVersions } from "../../shared/db/schema.js";
import { EdgegymError } from "../../shared/errors.js";
import type { Aggregate } from "../../shared/eval-aggregate.js";
import type { Manifest } from "../../shared/protocol.js";
import type { HubDb } from "../db.js";
import type { EnvRow } from "../registry/access.js";
import type { VersionRow } from "../registry/resolve.js";

export type RunRow = typeof hubEvalRuns.$inferSelect;

/** A run is seen by the team that submitted it, and by everyone when it and its env are public. */
export function runVisible(run: RunRow, env: EnvRow, team: string | null): boolean {
  return (team !== null && run.team === team) || (run.public && env.visibility === "public");
}

/** A run with its env and version; unknown and invisible runs give the same 404. */
export async function loadRun(
  db: HubDb,
  id: string,
  team: string | null,
): Promise<{ run: RunRow; env: EnvRow; version: VersionRow }> {
  const run = await db.query.hubEvalRuns.findFirst({ where: eq(hubEvalRuns.id, id) });
  const env = run ? await db.query.hubEnvs.findFirst({ where: eq(hubEnvs.id, run.envId) }) : undefined;
  if (!run || !env || !runVisible(run, env, team)) throw new EdgegymError("not_found", `no eval run ${id}`);
  const version = await db.query.hubVersions.findFirst({
    where: and(eq(hubVersions.envId, env.id), eq(hubVersions.version, run.version)),
  });
  if (!version) throw new EdgegymError("internal");
  return { run, env, version };
}

/** The submitting team's own run, for writes: other teams' runs are 404 like unknown ones. */
export async function ownRun(db: HubDb, id: string, team: string) {
  const loaded = await loadRun(db, id, team);
  if (loaded.run.team !== team) throw new EdgegymError("not_found", `no eval run ${id}`);
  return loaded;
}

export function requireRunning(run: RunRow): void {
  if (run.status !== "running") throw new EdgegymError("conflict", `eval run ${run.id} is already finished`);
}

export function runView(run: RunRow, env: EnvRow) {
  return {
    id: run.id,
    team: run.team,
    env: `${env.owner}/${env.name}`,
    version: run.version,
    contentHash: run.contentHash,
    split: run.split,
    tasks: run.tasks,
    model: run.model as Record<string, unknown>,
    public: run.public,
    status: run.status,
    aggregate: (run.aggregate as Aggregate | null) ?? null,
    createdAt: run.createdAt.toISOString(),
    finishedAt: run.finishedAt?.toISOString() ?? null,
  };
}

/** The run's task indices: `count` takes the split's first tasks so every model faces the same set. */
export function taskSet(tasks: { count: number } | { indices: number[] }, manifest: Manifest, split: string) {
  // Own keys only: `constructor` or `__proto__` as a split must be unknown, not Object.prototype's.
  const size = Object.hasOwn(manifest.splits, split) ? manifest.splits[split] : undefined;
  if (size === undefined) throw new EdgegymError("unknown_split", `${manifest.name} has no split ${split}`);
  const indices =
    "count" in tasks ? Array.from({ length: tasks.count }, (_, i) => i) : [...new Set(tasks.indices)];
  const outside = indices.find((i) => i >= size);
  if (outside !== undefined) {
    throw new EdgegymError("task_out_of_range", `task ${outside} is outside split ${split} (${size} tasks)`);
  }
  return indices.sort((a, b) => a - b);
}
