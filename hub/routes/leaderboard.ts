import { createRoute, z } from "@hono/zod-openapi";
import type { HubApp, RouteDeps } from "../app.js";
import { readerTeam } from "../auth/middleware.js";
import { hubDb } from "../db.js";
import { leaderboardOf, minTasksOf } from "../evals/leaderboard.js";
import { AggregateSchema } from "../evals/schemas.js";
import { readableEnv } from "../registry/access.js";
import { resolveVersion } from "../registry/resolve.js";
import { EnvParams, json, problems } from "../schemas.js";

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

export function registerLeaderboardRoutes(app: HubApp, _deps: RouteDeps): void {
  app.openapi(route, async (c) => {
    const team = readerTeam(c.get("principal"));
    const { owner, name } = c.req.valid("param");
    const q = c.req.valid("query");
    const db = hubDb(c.env);
    const { env } = await readableEnv(db, team, owner, name);
    const version = await resolveVersion(db, env, q.version);
    const minTasks = minTasksOf(q.minTasks, c.env.HUB_LEADERBOARD_MIN_TASKS);
    const entries = await leaderboardOf(db, {
      env,
      version: version.version,
      split: q.split,
      minTasks,
      team,
    });
    return c.json(
      { env: `${owner}/${name}`, version: version.version, split: q.split, minTasks, entries },
      200,
    );
  });
}
