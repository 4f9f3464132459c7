import type { EvalAggregate } from "../../shared/evals.js";
import { err, ok, type Result } from "../../shared/result.js";
import { EnvClient } from "../client/env-client.js";
import { resolveEnv } from "../client/resolve-env.js";
import { HubEvalRun } from "../eval/hub-eval.js";
import type { PolicyModel, Tokenizer } from "../model/types.js";
import { runRollouts } from "../rollout/loop.js";
import type { Trajectory } from "../rollout/types.js";

export type Hub = { url: string; token: string };

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
  aggregate: EvalAggregate;
  /** Receipts the hub rejected (should be 0). */
  rejected: number;
  /** The hub's reasons for them, `count × code: detail`. */
  rejections: string[];
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
  const created = await HubEvalRun.create(hubRef, {
    env: opts.env,
    split: opts.split,
    tasks: { count: opts.n },
    model: opts.model,
    public: true,
  });
  if (!created.ok) return created;
  const run = created.value;
  const transport = await resolveEnv(`hub://${opts.env}`, {
    connections: 16,
    hub: hubRef,
  });
  if (!transport.ok) return transport;
  const client = new EnvClient(transport.value, { concurrency: 16 });
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
      start: run.start,
    });
    trajectories = out.trajectories;
  } finally {
    await client.close();
  }
  // Episodes cut by maxSteps end without a receipt: the hub counts their tasks as failures.
  const uploaded = await run.upload(trajectories);
  if (!uploaded.ok) return uploaded;
  const aggregate = await run.finish();
  if (!aggregate.ok) return aggregate;
  if (!aggregate.value) return err(`eval run ${run.id} finished without an aggregate`);
  return ok({
    runId: run.id,
    aggregate: aggregate.value,
    rejected: uploaded.value.rejected,
    rejections: uploaded.value.rejections,
    trajectories,
  });
}
