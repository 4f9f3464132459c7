import { createRoute, z } from "@hono/zod-openapi";
import { and, eq, or } from "drizzle-orm";
import { hubEvalRuns } from "../../shared/db/schema.js";
import type { HubApp, RouteDeps } from "../app.js";
import { readerTeam } from "../auth/middleware.js";
import { hubDb } from "../db.js";
import type { Aggregate } from "../evals/aggregate.js";
import { runVisible } from "../evals/runs.js";
import { AggregateSchema } from "../evals/schemas.js";
import { readableEnv } from "../registry/access.js";
import { resolveVersion } from "../registry/resolve.js";
import { EnvParams, json, problems } from "../schemas.js";

const DEFAULT_MIN_TASKS = 10;

const Entry = AggregateSchema.extend({
  rank: z.number(),
  model: z.string(),
  runId: z.string(),
  team: z.string(),
  contentHash: z.string(),
  finishedAt: z.string(),
});
const Leaderboard = z
  .object({
    env: z.string(),
    version: z.string(),
    split: z.string(),
    minTasks: z.number(),
    entries: z.array(Entry),
  })
  .openapi("Leaderboard");

const route = createRoute({
  method: "get",
  path: "/v1/envs/{owner}/{name}/leaderboard",
  tags: ["evals"],
  summary: "Best finished run per model on one version and split (runs covering at least minTasks tasks)",
  request: {
    params: EnvParams,
    query: z.object({
      version: z.string().max(128).default("latest"),
      split: z.string().max(64).default("test"),
      minTasks: z.coerce.number().int().min(1).optional(),
    }),
  },
  responses: { 200: json(Leaderboard), ...problems(401, 403, 404, 422) },
});

/** Orders by mean return, then success rate, then the earlier finish (first to reach a score keeps it). */
function better(a: Aggregate & { finishedAt: Date }, b: Aggregate & { finishedAt: Date }): boolean {
  if (a.meanReturn !== b.meanReturn) return a.meanReturn > b.meanReturn;
  if (a.successRate !== b.successRate) return a.successRate > b.successRate;
  return a.finishedAt < b.finishedAt;
}

export function registerLeaderboardRoutes(app: HubApp, _deps: RouteDeps): void {
  app.openapi(route, async (c) => {
    const team = readerTeam(c.get("principal"));
    const { owner, name } = c.req.valid("param");
    const q = c.req.valid("query");
    const db = hubDb(c.env);
    const { env } = await readableEnv(db, team, owner, name);
    const version = await resolveVersion(db, env, q.version);
    const floor = Number(c.env.HUB_LEADERBOARD_MIN_TASKS ?? DEFAULT_MIN_TASKS);
    const minTasks = Math.max(q.minTasks ?? floor, 1);
    const visible =
      team === null
        ? eq(hubEvalRuns.public, true)
        : or(eq(hubEvalRuns.public, true), eq(hubEvalRuns.team, team));
    const runs = await db
      .select()
      .from(hubEvalRuns)
      .where(
        and(
          eq(hubEvalRuns.envId, env.id),
          eq(hubEvalRuns.version, version.version),
          eq(hubEvalRuns.split, q.split),
          eq(hubEvalRuns.status, "finished"),
          visible,
        ),
      );
    const best = new Map<string, { run: (typeof runs)[number]; agg: Aggregate & { finishedAt: Date } }>();
    for (const run of runs) {
      const agg = run.aggregate as Aggregate | null;
      if (!agg || !run.finishedAt || agg.n < minTasks || agg.verified === 0 || !runVisible(run, env, team))
        continue;
      const cand = { run, agg: { ...agg, finishedAt: run.finishedAt } };
      const cur = best.get(run.modelName);
      if (!cur || better(cand.agg, cur.agg)) best.set(run.modelName, cand);
    }
    const entries = [...best.values()]
      .sort((a, b) => (better(a.agg, b.agg) ? -1 : 1))
      .map(({ run, agg }, i) => ({
        rank: i + 1,
        model: run.modelName,
        runId: run.id,
        team: run.team,
        contentHash: run.contentHash,
        n: agg.n,
        verified: agg.verified,
        meanReturn: agg.meanReturn,
        successRate: agg.successRate,
        stderr: agg.stderr,
        meanSteps: agg.meanSteps,
        finishedAt: agg.finishedAt.toISOString(),
      }));
    return c.json(
      { env: `${owner}/${name}`, version: version.version, split: q.split, minTasks, entries },
      200,
    );
  });
}
