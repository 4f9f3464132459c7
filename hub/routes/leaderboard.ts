import { createRoute } from "@hono/zod-openapi";
import { Leaderboard, LeaderboardQuery } from "../../shared/evals.js";
import { EnvParams } from "../../shared/registry.js";
import { readerTeam } from "../auth/middleware.js";
import { hubDb } from "../db.js";
import { leaderboardOf, minTasksOf } from "../evals/leaderboard.js";
import { readableEnv } from "../registry/access.js";
import { resolveVersion } from "../registry/resolve.js";
import { json, problems, routeApp } from "../route-app.js";

const route = createRoute({
  method: "get",
  path: "/v1/envs/{owner}/{name}/leaderboard",
  tags: ["evals"],
  summary: "Best finished run per model on one version and split (runs covering at least minTasks tasks)",
  request: {
    params: EnvParams,
    query: LeaderboardQuery,
  },
  responses: { 200: json(Leaderboard), ...problems(401, 403, 404, 422) },
});

export const leaderboardRoutes = routeApp().openapi(route, async (c) => {
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
