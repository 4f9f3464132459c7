import { createRoute } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { hubEpisodes, hubEvalTasks } from "../../shared/db/schema.js";
import { EdgegymError } from "../../shared/errors.js";
import { EpisodeResults, EpisodeUpload, EvalSessionRequest, RunId } from "../../shared/evals.js";
import { SessionResponse } from "../../shared/protocol.js";
import { requireTeam } from "../auth/middleware.js";
import { hubDb } from "../db.js";
import { sealHandle } from "../evals/handle.js";
import { verifyEpisode } from "../evals/ingest.js";
import { ownRun, requireRunning } from "../evals/runs.js";
import { manifestOf, publicKeyOf } from "../registry/resolve.js";
import { callUpstream, stepDeadline, upstreamError, upstreamOf } from "../registry/upstream.js";
import { body, json, problems, routeApp } from "../route-app.js";

/** The protocol's session reply under the name the OpenAPI document gives it. */
const EvalSession = SessionResponse.openapi("EvalSession");

const session = createRoute({
  method: "post",
  path: "/v1/evals/{id}/sessions",
  tags: ["evals"],
  summary: "Start (or get again) one task's session: a hub handle, stepped with POST /v1/evals/{id}/step",
  request: { params: RunId, ...body(EvalSessionRequest) },
  responses: {
    201: json(EvalSession, "a new session"),
    200: json(EvalSession, "the session issued earlier for this task"),
    ...problems(401, 403, 404, 409, 422, 502),
  },
});
const episodes = createRoute({
  method: "post",
  path: "/v1/evals/{id}/episodes",
  tags: ["evals"],
  summary: "Upload receipts; each is verified and gets its own result",
  request: { params: RunId, ...body(EpisodeUpload) },
  responses: { 200: json(EpisodeResults), ...problems(401, 403, 404, 409, 422) },
});

/** `/v1/evals/{id}/sessions` and `/v1/evals/{id}/episodes` (upload): one run's tasks and receipts. */
export const episodeRoutes = routeApp()
  .openapi(session, async (c) => {
    const { now, fetch } = c.var;
    const { team } = requireTeam(c.get("principal"), "eval");
    const { id } = c.req.valid("param");
    const { index } = c.req.valid("json");
    const db = hubDb(c.env);
    const { run, version } = await ownRun(db, id, team);
    requireRunning(run);
    if (!run.tasks.includes(index)) {
      throw new EdgegymError("task_out_of_range", `task ${index} is not in this run's task set`);
    }
    // The env's token stays in the hub: the client gets a handle it can only step through the hub.
    const issue = async (start: SessionResponse, status: 200 | 201) => {
      const handle = {
        runId: run.id,
        task: index,
        episodeId: start.episodeId,
        step: 0,
        token: start.session,
      };
      return c.json({ ...start, session: await sealHandle(handle, c.env, now()) }, status);
    };
    const key = and(eq(hubEvalTasks.runId, run.id), eq(hubEvalTasks.taskIndex, index));
    const existing = await db.query.hubEvalTasks.findFirst({ where: key });
    if (existing) return issue(existing.start as SessionResponse, 200);
    const res = await callUpstream(
      upstreamOf(version),
      "sessions",
      {
        method: "POST",
        headers: { "content-type": "application/json", "x-request-id": c.get("requestId") },
        body: JSON.stringify({ split: run.split, index }),
      },
      c.env,
      fetch,
      stepDeadline(manifestOf(version).limits?.stepTimeoutMs, c.env),
    );
    if (res.status !== 201) throw await upstreamError(res);
    const start = SessionResponse.safeParse(await res.json().catch(() => null));
    if (!start.success)
      throw new EdgegymError("upstream_unreachable", "the environment's session reply is malformed");
    const inserted = await db
      .insert(hubEvalTasks)
      .values({
        runId: run.id,
        taskIndex: index,
        episodeId: start.data.episodeId,
        start: start.data,
        createdAt: new Date(now()),
      })
      .onConflictDoNothing()
      .returning();
    if (inserted.length > 0) return issue(start.data, 201);
    // A concurrent request for the same task won; everyone gets its session.
    const winner = await db.query.hubEvalTasks.findFirst({ where: key });
    return issue((winner?.start ?? start.data) as SessionResponse, 200);
  })
  .openapi(episodes, async (c) => {
    const { team } = requireTeam(c.get("principal"), "eval");
    const { id } = c.req.valid("param");
    const db = hubDb(c.env);
    const { run, version } = await ownRun(db, id, team);
    requireRunning(run);
    const manifest = manifestOf(version);
    const issuedRows = await db
      .select({ episodeId: hubEvalTasks.episodeId, taskIndex: hubEvalTasks.taskIndex })
      .from(hubEvalTasks)
      .where(eq(hubEvalTasks.runId, run.id));
    const expectation = {
      envName: manifest.name,
      envVersion: manifest.version,
      contentHash: run.contentHash,
      split: run.split,
      publicKey: publicKeyOf(version),
      issued: new Map(issuedRows.map((r) => [r.episodeId, r.taskIndex])),
    };
    const items = c.req.valid("json").episodes;
    const checked = await Promise.all(items.map((item) => verifyEpisode(item, expectation)));
    const createdAt = new Date(c.var.now());
    // One D1 round trip for every verified episode; the episodeId primary key makes a replayed or
    // duplicated receipt count once, even under races (the loser's insert returns no row).
    const inserts = checked.flatMap((r) =>
      r.ok
        ? [
            db
              .insert(hubEpisodes)
              .values({ ...r.value, runId: run.id, createdAt })
              .onConflictDoNothing()
              .returning({ episodeId: hubEpisodes.episodeId }),
          ]
        : [],
    );
    const stored = inserts.length > 0 ? await db.batch(inserts as [(typeof inserts)[number]]) : [];
    let next = 0;
    const results: EpisodeResults["results"] = checked.map((r, i) => {
      const episodeId = items[i]?.episodeId ?? "";
      if (!r.ok) return { episodeId, ok: false, error: r.error.toProblem() };
      const rows = stored[next++] ?? [];
      return rows.length > 0
        ? { episodeId, ok: true as const }
        : {
            episodeId,
            ok: false as const,
            error: new EdgegymError("conflict", "this episode was already uploaded").toProblem(),
          };
    });
    return c.json({ results }, 200);
  });
