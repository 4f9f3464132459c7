import { and, eq } from "drizzle-orm";
import type { Context } from "hono";
import { hubEvalSteps } from "../../shared/db/schema.js";
import { EdgegymError } from "../../shared/errors.js";
import { type StepRequest, StepResult } from "../../shared/protocol.js";
import { requireTeam } from "../auth/middleware.js";
import { type HubDb, hubDb } from "../db.js";
import type { AppEnv, HubBindings } from "../env.js";
import { manifestOf } from "../registry/resolve.js";
import { callUpstream, stepDeadline, upstreamOf } from "../registry/upstream.js";
import { openHandle, sealHandle } from "./handle.js";
import { ownRun, requireRunning } from "./runs.js";

export type EvalStepContext = {
  db: HubDb;
  bindings: HubBindings;
  team: string;
  requestId: string;
  now: number;
  fetch: (request: Request) => Promise<Response>;
};

/**
 * What an eval step needs from a request: the caller's team (with `eval`) and the hub's bindings. Both
 * routes that step evaluation sessions use it: `/v1/evals/{id}/step` and the gateway's `step`.
 */
export function evalStepContext(c: Context<AppEnv>): EvalStepContext {
  const { team } = requireTeam(c.get("principal"), "eval");
  return {
    db: hubDb(c.env),
    bindings: c.env,
    team,
    requestId: c.get("requestId"),
    now: c.var.now(),
    fetch: c.var.fetch,
  };
}

/**
 * One step of a hub-issued evaluation episode. The handle's step number is claimed in D1 before the env
 * sees the action, so stepping the same handle twice (forking the episode to keep the best branch) is a
 * `409 conflict`. The env's reply passes through, its session replaced by the handle of the next step.
 * `runId` is the run named in the path, when there is one.
 */
export async function evalStep(ctx: EvalStepContext, req: StepRequest, runId?: string): Promise<Response> {
  const handle = await openHandle(req.session, ctx.bindings, ctx.now);
  if (runId !== undefined && handle.runId !== runId) {
    throw new EdgegymError("invalid_session", "the session belongs to another evaluation run");
  }
  const { run, version } = await ownRun(ctx.db, handle.runId, ctx.team);
  requireRunning(run);
  const claimed = await ctx.db
    .insert(hubEvalSteps)
    .values({ episodeId: handle.episodeId, step: handle.step, createdAt: new Date(ctx.now) })
    .onConflictDoNothing()
    .returning({ step: hubEvalSteps.step });
  if (claimed.length === 0) {
    throw new EdgegymError(
      "conflict",
      `step ${handle.step} of episode ${handle.episodeId} was already taken: evaluation episodes cannot be forked`,
    );
  }
  const res = await callUpstream(
    upstreamOf(version),
    "step",
    {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": ctx.requestId },
      body: JSON.stringify({ session: handle.token, action: req.action }),
    },
    ctx.bindings,
    ctx.fetch,
    stepDeadline(manifestOf(version).limits?.stepTimeoutMs, ctx.bindings),
  ).catch(async (e: unknown) => {
    await release(ctx.db, handle.episodeId, handle.step);
    throw e;
  });
  if (res.status !== 200) {
    // The env refused the action without moving on (bad action, env down): the step may be tried again.
    await release(ctx.db, handle.episodeId, handle.step);
    return res;
  }
  const result = StepResult.safeParse(await res.json().catch(() => null));
  if (!result.success) {
    throw new EdgegymError("upstream_unreachable", "the environment's step reply is malformed");
  }
  const next = { ...handle, step: handle.step + 1, token: result.data.session };
  const session = await sealHandle(next, ctx.bindings, ctx.now);
  return Response.json({ ...result.data, session }, { status: 200 });
}

function release(db: HubDb, episodeId: string, step: number) {
  return db
    .delete(hubEvalSteps)
    .where(and(eq(hubEvalSteps.episodeId, episodeId), eq(hubEvalSteps.step, step)));
}
