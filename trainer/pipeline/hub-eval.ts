import { z } from "zod";
import { Problem } from "../../shared/errors.js";
import { SessionResponse } from "../../shared/protocol.js";
import { err, ok, type Result } from "../../shared/result.js";
import { EnvClient } from "../client/env-client.js";
import { resolveEnv } from "../client/resolve-env.js";
import type { PolicyModel, Tokenizer } from "../policy/types.js";
import { runRollouts } from "../rollout/loop.js";
import type { StartSession, Trajectory } from "../rollout/types.js";

/** The hub's aggregate of a finished run (hub/evals/schemas.ts `Aggregate`). */
export const HubAggregate = z.object({
  n: z.number(),
  verified: z.number(),
  meanReturn: z.number(),
  successRate: z.number(),
  stderr: z.number(),
  meanSteps: z.number().nullable(),
});
export type HubAggregate = z.infer<typeof HubAggregate>;

const RunView = z.object({ id: z.string(), status: z.string(), aggregate: HubAggregate.nullable() });
const EpisodeResults = z.object({
  results: z.array(z.object({ episodeId: z.string(), ok: z.boolean(), error: Problem.optional() })),
});

export type Hub = { url: string; token: string };

/** One JSON call to the hub's API; problems come back as their detail and code. */
export async function hubCall<T>(
  hub: Hub,
  method: string,
  path: string,
  schema: z.ZodType<T>,
  body?: unknown,
): Promise<Result<T>> {
  let res: Response;
  try {
    res = await fetch(hub.url + path, {
      method,
      headers: {
        authorization: `Bearer ${hub.token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (e) {
    return err(`cannot reach the hub at ${hub.url}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const json: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const p = Problem.safeParse(json);
    return err(
      `${method} ${path}: ${p.success ? `${p.data.detail ?? p.data.title} (${p.data.code})` : `HTTP ${res.status}`}`,
    );
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? ok(parsed.data) : err(`${method} ${path}: unexpected reply`);
}

export type HubEvalOptions = {
  /** `owner/name@version`. */
  env: string;
  split: string;
  n: number;
  maxSteps: number;
  maxNewTokens: number;
  /** The name the leaderboard shows, plus any metadata. */
  model: { name: string } & Record<string, unknown>;
};

export type HubEvalResult = {
  runId: string;
  aggregate: HubAggregate;
  /** Receipts the hub rejected (should be 0). */
  rejected: number;
  trajectories: Trajectory[];
};

/**
 * A hub evaluation run of a local policy: create the run (the hub fixes tasks 0..n−1), play each
 * task once greedily on hub-issued sessions, upload the receipts, finish. Tasks without a verified
 * receipt (cut by maxSteps, unreachable env) count as failures in the hub's aggregate.
 */
export async function runHubEval(
  hubRef: Hub,
  policy: { model: PolicyModel; tokenizer: Tokenizer },
  opts: HubEvalOptions,
): Promise<Result<HubEvalResult>> {
  const run = await hubCall(hubRef, "POST", "/v1/evals", RunView, {
    env: opts.env,
    split: opts.split,
    tasks: { count: opts.n },
    model: opts.model,
    public: true,
  });
  if (!run.ok) return run;
  const transport = await resolveEnv(`hub://${opts.env}`, {
    connections: 16,
    env: { ...process.env, EDGEGYM_HUB_URL: hubRef.url, EDGEGYM_TOKEN: hubRef.token },
  });
  if (!transport.ok) return transport;
  const client = new EnvClient(transport.value, { concurrency: 16 });
  // Sessions come from the hub's run, so every episode belongs to its fixed task set.
  const start: StartSession = async (task) => {
    const r = await hubCall(hubRef, "POST", `/v1/evals/${run.value.id}/sessions`, SessionResponse, {
      index: task.index,
    });
    return r.ok ? r : err({ kind: "rejected", detail: r.error, attempts: 1 });
  };
  let trajectories: Trajectory[];
  try {
    const out = await runRollouts(policy.model, policy.tokenizer, client, {
      split: opts.split,
      tasks: Array.from({ length: opts.n }, (_, i) => i),
      groupSize: 1,
      maxLive: 32,
      maxSteps: opts.maxSteps,
      maxNewTokens: opts.maxNewTokens,
      temperature: 0,
      topP: 1,
      seed: 1,
      renderTools: false,
      start,
    });
    trajectories = out.trajectories;
  } finally {
    await client.close();
  }
  let rejected = 0;
  // Episodes cut by maxSteps end without a receipt: the hub counts their tasks as failures.
  const receipts = trajectories.flatMap((t) => {
    const receipt = t.steps.at(-1)?.receipt;
    return receipt && t.episodeId ? [{ episodeId: t.episodeId, receipt }] : [];
  });
  for (let from = 0; from < receipts.length; from += 256) {
    const up = await hubCall(hubRef, "POST", `/v1/evals/${run.value.id}/episodes`, EpisodeResults, {
      episodes: receipts.slice(from, from + 256),
    });
    if (!up.ok) return up;
    rejected += up.value.results.filter((r) => !r.ok).length;
  }
  const done = await hubCall(hubRef, "POST", `/v1/evals/${run.value.id}/finish`, RunView);
  if (!done.ok) return done;
  if (!done.value.aggregate) return err(`eval run ${run.value.id} finished without an aggregate`);
  return ok({ runId: run.value.id, aggregate: done.value.aggregate, rejected, trajectories });
}
