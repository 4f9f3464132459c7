import type * as tf from "@tensorflow/tfjs-core";
import { resolveMethod } from "../algos/registry.js";
import { PASS_ELEMENTS } from "../model/passes.js";
import type { PolicyModel } from "../model/types.js";
import { PolicyPool } from "../parallel/policy-pool.js";
import type { Trajectory } from "../rollout/types.js";
import { buildBatch } from "./batch.js";
import type { TrainConfig } from "./config.js";
import { scoreRows } from "./score.js";
import { computeTargets } from "./targets.js";
import { applyGradients, lossSettings, minibatchShards, rlPassTask } from "./update-step.js";

export type UpdateContext = {
  model: PolicyModel;
  optimizer: tf.Optimizer;
  /** Frozen initial policy, present when `klCoef` > 0. */
  reference?: PolicyModel;
  config: TrainConfig;
  pad: number;
  /**
   * The threads that share the scoring and each minibatch's gradient (trainer/parallel), holding
   * `model` and `reference`; default the pool of one over them, which runs everything here.
   */
  pool?: PolicyPool;
  /** Budget of one forward(/backward) pass in float32 elements (model/passes.ts); default {@link PASS_ELEMENTS}. */
  passElements?: number;
};

/**
 * One RL update on a set of rollouts, CleanRL's PPO update in four parts: lay the rollouts out as
 * training rows; score them under the current (= old) policy (score.ts); compute advantages and
 * value targets with the method's estimator (targets.ts); then `ppoEpochs` passes over the rows in
 * minibatches, each one optimizer step of policy loss (+ KL, entropy, value terms) with global
 * gradient-norm clipping (update-step.ts). Returns the metrics (`losses/*`, `grad/norm`) averaged
 * over the steps, and the number of tokens pushed through training.
 */
export async function rlUpdate(
  ctx: UpdateContext,
  trajectories: readonly Trajectory[],
): Promise<{ metrics: Record<string, number>; trainTokens: number }> {
  const cfg = ctx.config;
  const method = resolveMethod(cfg.algorithm);
  if (method === undefined) throw new Error(`unknown RL method ${cfg.algorithm}`);
  const passElements = ctx.passElements ?? PASS_ELEMENTS;
  const loss = lossSettings(cfg, method.critic !== "none");

  // Merged rows score the same tokens with the same prefixes, so only a loss that treats each step as
  // its own sequence (GSPO's ratio, the seq-mean aggregations) needs one row per step.
  const merge = cfg.policyLoss === "ppo" && cfg.aggregation === "token-mean";
  const batch = buildBatch(trajectories, ctx.pad, merge);
  if (batch.sequences.length === 0) return { metrics: {}, trainTokens: 0 };
  const pool =
    ctx.pool ?? PolicyPool.of({ policy: ctx.model, ...(ctx.reference ? { reference: ctx.reference } : {}) });
  const scores = await scoreRows(pool, batch, {
    values: loss.critic,
    reference: ctx.reference !== undefined,
    budget: passElements,
  });
  const targets = await computeTargets(batch, scores, cfg, method.estimator);
  const apart = new Set(
    loss.critic && cfg.valueTrunk === "detached" ? ctx.model.valueVariables.map((v) => v.name) : [],
  );

  const sums: Record<string, number> = {};
  let steps = 0;
  let trainTokens = 0;
  const rowsPer = cfg.miniBatchRows > 0 ? cfg.miniBatchRows : batch.sequences.length;
  for (let epoch = 0; epoch < cfg.ppoEpochs; epoch++) {
    for (let from = 0; from < batch.sequences.length; from += rowsPer) {
      const rows = batch.sequences.slice(from, from + rowsPer).map((_, i) => from + i);
      const data = { batch, scores, targets };
      const shards = minibatchShards(data, rows, loss, ctx.model.config, passElements, pool.size).filter(
        (s) => s.length > 0,
      );
      // A minibatch with no trained token takes no optimizer step.
      if (shards.length === 0) continue;
      const { grads, notes: metrics } = await pool.gradients(rlPassTask, shards);
      const norms = await applyGradients(ctx.optimizer, grads, cfg.maxGradNorm, apart);
      metrics["grad/norm"] = norms.norm;
      if (norms.apartNorm !== undefined) metrics["grad/value_norm"] = norms.apartNorm;
      addInto(sums, metrics);
      steps++;
      trainTokens += rows.reduce((a, r) => a + (batch.sequences[r]?.length ?? 0), 0);
    }
  }
  const metrics = Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, v / Math.max(1, steps)]));
  return { metrics, trainTokens };
}

function addInto(sums: Record<string, number>, values: Record<string, number>): void {
  for (const [k, v] of Object.entries(values)) sums[k] = (sums[k] ?? 0) + v;
}
