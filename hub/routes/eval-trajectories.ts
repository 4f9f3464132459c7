import { createRoute, z } from "@hono/zod-openapi";
import type { HubApp, RouteDeps } from "../app.js";
import { readerTeam } from "../auth/middleware.js";
import { hubDb } from "../db.js";
import { runEpisodes } from "../evals/episodes.js";
import { loadRun } from "../evals/runs.js";
import { json, problems } from "../schemas.js";

const Episode = z
  .object({
    episodeId: z.string(),
    taskIndex: z.number(),
    return: z.number(),
    finalReward: z.number(),
    steps: z.number(),
    receipt: z.string(),
    receiptStatus: z.union([
      z.object({ verified: z.literal(true) }),
      z.object({ verified: z.literal(false), error: z.string() }),
    ]),
    trajectory: z
      .unknown()
      .openapi({ description: "As uploaded; see shared/transcript.ts for the shape the web hub renders" }),
    createdAt: z.string(),
  })
  .openapi("StoredEpisode");

const EpisodePage = z.object({
  episodes: z.array(Episode),
  total: z.number(),
  nextTask: z
    .number()
    .nullable()
    .openapi({ description: "Pass as fromTask for the next page; null at the end" }),
});

const list = createRoute({
  method: "get",
  path: "/v1/evals/{id}/episodes",
  tags: ["evals"],
  summary:
    "A run's verified episodes with their trajectories, in task order (who may see the run may read them)",
  request: {
    params: z.object({ id: z.string().max(64) }),
    query: z.object({
      fromTask: z.coerce.number().int().nonnegative().default(0),
      limit: z.coerce.number().int().min(1).max(100).default(20),
    }),
  },
  responses: { 200: json(EpisodePage), ...problems(401, 403, 404, 422) },
});

export function registerTrajectoryRoutes(app: HubApp, _deps: RouteDeps): void {
  app.openapi(list, async (c) => {
    const team = readerTeam(c.get("principal"));
    const db = hubDb(c.env);
    const { run, version } = await loadRun(db, c.req.valid("param").id, team);
    return c.json(await runEpisodes(db, run, version, c.req.valid("query")), 200);
  });
}
