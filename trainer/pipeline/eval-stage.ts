import type { HubTarget } from "../../hub/client.js";
import type { EvalAggregate } from "../../shared/evals.js";
import { err, ok, type Result } from "../../shared/result.js";
import { startBackend } from "../backend/start-backend.js";
import { loadPolicy } from "../checkpoint/load-policy.js";
import { EnvClient } from "../client/env-client.js";
import { resolveEnv } from "../client/resolve-env.js";
import { evaluateOnHub } from "../eval/hub-eval.js";
import { firstTasks, playTasks } from "../eval/play-tasks.js";
import { failureLines } from "../eval/policy-failure.js";
import type { PolicyModel } from "../model/types.js";
import type { Trajectory } from "../rollout/types.js";
import type { Tokenizer } from "../tokenizer/types.js";
import { evalOutcomes } from "./paired.js";
import type { EvalDone, StageContext, StageOf } from "./plan.js";
import { selectedSegment } from "./select.js";

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
  hubRef: HubTarget,
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
      return ok(
        await playTasks(policy.model, policy.tokenizer, client, {
          split: opts.split,
          tasks: firstTasks(opts.n),
          maxSteps: opts.maxSteps,
          maxNewTokens: opts.maxNewTokens,
          start: run.start,
        }),
      );
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

/**
 * The evaluation of one policy (SFT's, or RL's: the last segment's, or the one `select` chose) as a
 * hub evaluation run, recorded in state.json with its task-by-task outcomes.
 */
export async function runEvalStage(stage: StageOf<"eval">, ctx: StageContext): Promise<Result<void>> {
  const { recipe, io, state } = ctx;
  const label = stage.which === "sft" ? "sft" : `sft+${recipe.rl.algorithm}`;
  if (stage.which === "rl" && recipe.select) {
    const chosen = selectedSegment(state.segments, recipe.select) + 1;
    io.log(`select: segment ${chosen} of ${state.segments.length}, the best on ${recipe.select.split} tasks`);
  }
  io.log(`stage eval ${label}: ${recipe.eval.split} tasks 0..${recipe.eval.n - 1} as a hub evaluation run`);
  const backend = await startBackend(recipe.rl.backend ?? recipe.sft.backend, io);
  if (!backend.ok) return backend;
  state.backend = backend.value;
  const policy = await loadPolicy(stage.checkpoint, {}, 1, io);
  if (!policy.ok) return policy;
  const model = `${ctx.name}/${label}`;
  const ran = await runHubEval(ctx.hub, policy.value, {
    env: recipe.env,
    ...recipe.eval,
    model: { name: model, recipe: ctx.name, checkpoint: stage.checkpoint, backend: backend.value },
  });
  if (!ran.ok) return ran;
  const a = ran.value.aggregate;
  io.log(
    `eval ${label}: success ${a.successRate.toFixed(3)}, reward ${a.meanReturn.toFixed(3)} ± ${a.stderr.toFixed(3)} (n=${a.n}, verified ${a.verified}, rejected ${ran.value.rejected}) hub run ${ran.value.runId}`,
  );
  for (const why of ran.value.rejections) io.log(`eval ${label}: the hub rejected ${why}`);
  for (const line of ran.value.failures) io.log(`eval ${label}: no receipt: ${line}`);
  const outcomes = ran.value.outcomes;
  if (!outcomes.ok) io.log(`eval ${label}: no task-by-task record: ${outcomes.error}`);
  const result: EvalDone = {
    runId: ran.value.runId,
    model,
    checkpoint: stage.checkpoint,
    aggregate: a,
    seconds: ctx.seconds(),
    ...(outcomes.ok ? { outcomes: outcomes.value } : {}),
  };
  if (stage.which === "sft") state.evalSft = result;
  else state.evalRl = result;
  return ok(undefined);
}
