import type { EvalAggregate } from "../../shared/evals.js";
import { err, ok, type Result } from "../../shared/result.js";
import { EnvClient } from "../client/env-client.js";
import { resolveEnv } from "../client/resolve-env.js";
import { evaluateOnHub } from "../eval/hub-eval.js";
import { failureLines } from "../eval/policy-failure.js";
import type { PolicyModel } from "../model/types.js";
import { runRollouts } from "../rollout/loop.js";
import type { Trajectory } from "../rollout/types.js";
import type { Tokenizer } from "../tokenizer/types.js";
import { evalOutcomes } from "./paired.js";

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
  /** Episodes the env could not finish (each task a failure for the hub): one line per kind. */
  failures: string[];
  trajectories: Trajectory[];
  /** Task i's success at position i (`0`/`1`), or why the played episodes can't give the hub's count. */
  outcomes: ReturnType<typeof evalOutcomes>;
};

/**
 * A hub evaluation run of a local policy through the one flow (`evaluateOnHub`: create the run, the
 * hub fixing tasks 0..n−1; play; upload the receipts; finish), each task played once greedily on
 * hub-issued sessions. Tasks without a verified
 * receipt (cut by maxSteps, unreachable env) count as failures in the hub's aggregate.
 */
export async function runHubEval(
  hubRef: Hub,
  policy: { model: PolicyModel; tokenizer: Tokenizer },
  opts: HubEvalOptions,
): Promise<Result<HubEvalResult>> {
  const body = {
    env: opts.env,
    split: opts.split,
    tasks: { count: opts.n },
    model: opts.model,
    public: true,
  };
  const evaluated = await evaluateOnHub(hubRef, body, async (run) => {
    const transport = await resolveEnv(`hub://${opts.env}`, {
      connections: 16,
      hub: hubRef,
    });
    if (!transport.ok) return transport;
    const client = new EnvClient(transport.value, { concurrency: 16 });
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
      return ok(out.trajectories);
    } finally {
      await client.close();
    }
  });
  if (!evaluated.ok) return evaluated;
  const { runId, aggregate, uploaded, trajectories } = evaluated.value;
  if (!aggregate) return err(`eval run ${runId} finished without an aggregate`);
  return ok({
    runId,
    aggregate,
    rejected: uploaded.rejected,
    rejections: uploaded.rejections,
    failures: failureLines(trajectories),
    trajectories,
    outcomes: evalOutcomes(trajectories, { ...aggregate, rejected: uploaded.rejected }),
  });
}
