import { createRoute } from "@hono/zod-openapi";
import { EpisodePage, EpisodePageQuery, RunId } from "../../shared/evals.js";
import { readerTeam } from "../auth/middleware.js";
import { hubDb } from "../db.js";
import { runEpisodes } from "../evals/episodes.js";
import { loadRun } from "../evals/runs.js";
import { json, problems, routeApp } from "../route-app.js";

const list = createRoute({
  method: "get",
  path: "/v1/evals/{id}/episodes",
  tags: ["evals"],
  summary:
    "A run's verified episodes with their trajectories, in task order (who may see the run may read them)",
  request: {
    params: RunId,
    query: EpisodePageQuery,
  },
  responses: { 200: json(EpisodePage), ...problems(401, 403, 404, 422) },
});

/** `GET /v1/evals/{id}/episodes`: what the web hub's run page reads, as API. */
export const trajectoryRoutes = routeApp().openapi(list, async (c) => {
  const team = readerTeam(c.get("principal"));
  const db = hubDb(c.env);
  const { run, version } = await loadRun(db, c.req.valid("param").id, team);
  return c.json(await runEpisodes(db, run, version, c.req.valid("query")), 200);
});
