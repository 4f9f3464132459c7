import { createRoute } from "@hono/zod-openapi";
import { and, desc, eq, lt, or, type SQL } from "drizzle-orm";
import { hubEpisodes, hubEvalRuns } from "../../shared/db/schema.js";
import { parseEnvId, parseEnvRef } from "../../shared/env-ref.js";
import { EdgegymError } from "../../shared/errors.js";
import { aggregate, type TaskOutcome } from "../../shared/eval-aggregate.js";
import { CreateEval, EvalList, EvalRun, ListEvalsQuery, RunId } from "../../shared/evals.js";
import { storedReceiptClaims } from "../../shared/receipt.js";
import { readerTeam, requireTeam } from "../auth/middleware.js";
import { newId } from "../auth/tokens.js";
import { hubDb } from "../db.js";
import { loadRun, ownRun, runView, runVisible, taskSet } from "../evals/runs.js";
import { readableEnv } from "../registry/access.js";
import { manifestOf, resolveVersion } from "../registry/resolve.js";
import { body, json, problems, routeApp } from "../route-app.js";

const create = createRoute({
  method: "post",
  path: "/v1/evals",
  tags: ["evals"],
  summary: "Create an evaluation run with a fixed task set",
  request: body(CreateEval),
  responses: { 201: json(EvalRun, "the run"), ...problems(401, 403, 404, 409, 422) },
});
const get = createRoute({
  method: "get",
  path: "/v1/evals/{id}",
  tags: ["evals"],
  summary: "One run (its team's, or public on a public env)",
  request: { params: RunId },
  responses: { 200: json(EvalRun), ...problems(401, 403, 404) },
});
const list = createRoute({
  method: "get",
  path: "/v1/evals",
  tags: ["evals"],
  summary: "Runs of an env the caller may see, newest first",
  request: { query: ListEvalsQuery },
  responses: { 200: json(EvalList), ...problems(401, 403, 404, 422) },
});
const finish = createRoute({
  method: "post",
  path: "/v1/evals/{id}/finish",
  tags: ["evals"],
  summary: "Aggregate the run; tasks without a verified episode count as failures",
  request: { params: RunId },
  responses: { 200: json(EvalRun), ...problems(401, 403, 404, 409) },
});

/** `/v1/evals`: create, read, list and finish evaluation runs. */
export const evalRoutes = routeApp()
  .openapi(create, async (c) => {
    const { team } = requireTeam(c.get("principal"), "eval");
    const b = c.req.valid("json");
    const ref = parseEnvRef(b.env);
    if (!ref) throw new EdgegymError("invalid_request", "env must be owner/name@version");
    const db = hubDb(c.env);
    const { env } = await readableEnv(db, team, ref.owner, ref.name);
    const version = await resolveVersion(db, env, ref.version);
    if (version.yankedAt) throw new EdgegymError("conflict", `${b.env} is yanked; evaluate another version`);
    const tasks = taskSet(b.tasks, manifestOf(version), b.split);
    const row = {
      id: newId("run"),
      team,
      envId: env.id,
      version: version.version,
      contentHash: version.contentHash,
      split: b.split,
      tasks,
      modelName: b.model.name,
      model: b.model,
      public: b.public ?? false,
      status: "running" as const,
      aggregate: null,
      createdAt: new Date(c.var.now()),
      finishedAt: null,
    };
    await db.insert(hubEvalRuns).values(row);
    return c.json(runView(row, env), 201);
  })
  .openapi(get, async (c) => {
    const team = readerTeam(c.get("principal"));
    const { run, env } = await loadRun(hubDb(c.env), c.req.valid("param").id, team);
    return c.json(runView(run, env), 200);
  })
  .openapi(list, async (c) => {
    const team = readerTeam(c.get("principal"));
    const q = c.req.valid("query");
    // The query schema has checked the shape.
    const { owner, name, version } = parseEnvId(q.env) ?? { owner: "", name: "" };
    const db = hubDb(c.env);
    const { env } = await readableEnv(db, team, owner, name);
    const where: (SQL | undefined)[] = [eq(hubEvalRuns.envId, env.id)];
    if (version) where.push(eq(hubEvalRuns.version, version));
    const cursor = q.cursor ? /^(\d+)_(.+)$/.exec(q.cursor) : null;
    if (q.cursor && !cursor) throw new EdgegymError("invalid_request", "bad cursor");
    if (cursor?.[1] && cursor[2]) {
      const t = new Date(Number(cursor[1]));
      where.push(
        or(lt(hubEvalRuns.createdAt, t), and(eq(hubEvalRuns.createdAt, t), lt(hubEvalRuns.id, cursor[2]))),
      );
    }
    const visible =
      team === null
        ? eq(hubEvalRuns.public, true)
        : or(eq(hubEvalRuns.public, true), eq(hubEvalRuns.team, team));
    const rows = await db
      .select()
      .from(hubEvalRuns)
      .where(and(...where, visible))
      .orderBy(desc(hubEvalRuns.createdAt), desc(hubEvalRuns.id))
      .limit(q.limit + 1);
    const page = rows.slice(0, q.limit).filter((r) => runVisible(r, env, team));
    const last = rows.length > q.limit ? rows[q.limit - 1] : undefined;
    return c.json(
      {
        runs: page.map((r) => runView(r, env)),
        nextCursor: last ? `${last.createdAt.getTime()}_${last.id}` : null,
      },
      200,
    );
  })
  .openapi(finish, async (c) => {
    const { team } = requireTeam(c.get("principal"), "eval");
    const db = hubDb(c.env);
    const { run, env, version } = await ownRun(db, c.req.valid("param").id, team);
    if (run.status === "finished") return c.json(runView(run, env), 200);
    const episodes = await db.query.hubEpisodes.findMany({ where: eq(hubEpisodes.runId, run.id) });
    // Each stored receipt was verified on upload; its success claim is the task's success.
    const byTask = new Map(
      episodes.map((e) => [e.taskIndex, { ...e, success: storedReceiptClaims(e.receipt)?.success }]),
    );
    const outcomes: TaskOutcome[] = run.tasks.map((i) => byTask.get(i) ?? null);
    const agg = aggregate(outcomes, manifestOf(version).reward.min);
    const finishedAt = new Date(c.var.now());
    const updated = await db
      .update(hubEvalRuns)
      .set({ status: "finished", aggregate: agg, finishedAt })
      .where(and(eq(hubEvalRuns.id, run.id), eq(hubEvalRuns.status, "running")))
      .returning();
    const final = updated[0] ?? (await loadRun(db, run.id, team)).run;
    return c.json(runView(final, env), 200);
  });
