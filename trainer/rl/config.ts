import { z } from "zod";
import type { Result } from "../../shared/result.js";
import { LOSS_AGGREGATIONS, POLICY_LOSSES } from "../algos/names.js";
import { DEFAULT_METHOD, METHODS, methodNames, withMethodDefaults } from "../algos/registry.js";
import { BACKENDS } from "../backend/names.js";
import { resolveConfig } from "../config/parse-config.js";
import { ModelShape } from "../model/config.js";

/** The fields of {@link TrainConfig}, before the method's values are applied. */
export const TrainFields = z.strictObject({
  /** `--env`: an env URL, `hub://owner/name@version` or `local:<name>`. */
  env: z.string().default("local:calculator"),
  /** Task split the rollouts draw from. */
  split: z.string().default("train"),
  /** tfjs backend; unset picks the first that loads (tfjs-node-gpu, tfjs-node, wasm, cpu). */
  backend: z.enum(BACKENDS).optional(),
  /** Seed of the model init, task order and sampling. */
  seed: z.number().int().default(1),
  /** Checkpoint folder to start from (an `edgegym sft` result); unset starts from a fresh model. */
  init: z.string().optional(),
  /** Run folder: config.json, metrics.jsonl, trajectories.jsonl, checkpoints/, report.png/svg. */
  out: z.string().default("runs/latest"),

  /**
   * RL method, a name in trainer/algos/registry.ts: grpo, dr-grpo, ppo, rloo, reinforce++,
   * reinforce++-baseline, steppo. It picks the advantage estimator and supplies the fields below that
   * it has values for (policyLoss, aggregation; StepPO's clip range, γ, λ) when they are unset.
   * "gae", the older name of ppo, is read as ppo.
   */
  algorithm: z.enum(methodNames(METHODS)).default(DEFAULT_METHOD),
  /** Policy loss: PPO clip (token ratio) or GSPO (sequence geometric-mean ratio, StepPO's). */
  policyLoss: z.enum(POLICY_LOSSES).default("ppo"),
  /** How per-token losses become one scalar. */
  aggregation: z.enum(LOSS_AGGREGATIONS).default("token-mean"),
  /** RL iterations (rollout + update). */
  iterations: z.number().int().positive().default(20),
  /** Tasks per iteration; each is rolled out `groupSize` times. */
  tasksPerIteration: z.number().int().positive().default(8),
  /** Rollouts per task (GRPO/RLOO group). */
  groupSize: z.number().int().positive().default(8),
  /** Most episodes generating together. */
  maxLive: z.number().int().positive().default(64),
  /**
   * DAPO's dynamic sampling (trainer/rl/dynamic-sampling.ts): train only on groups whose rollouts did
   * not all score the same, rolling out up to `filterRounds` rounds of `tasksPerIteration` tasks until
   * `tasksPerIteration` such groups are kept. For group baselines (GRPO, Dr.GRPO, RLOO), whose
   * advantage is 0 on every token of the other groups.
   */
  filterGroups: z.boolean().default(false),
  /** Most rollout rounds an iteration with `filterGroups`. */
  filterRounds: z.number().int().positive().default(3),
  /** Client-side cap on steps per episode. */
  maxSteps: z.number().int().positive().default(4),
  /** Most tokens sampled per step. */
  maxNewTokens: z.number().int().positive().default(48),
  /** Sampling temperature during training rollouts (1 keeps the logprobs exact). */
  temperature: z.number().positive().default(1),
  /** Nucleus mass during training rollouts. */
  topP: z.number().positive().max(1).default(1),
  /** Passes over each iteration's rollouts. */
  ppoEpochs: z.number().int().positive().default(1),
  /**
   * Training rows per gradient step; 0 means the whole batch at once. A row is one step, or with the
   * PPO loss and token-mean aggregation all the append-mode steps of an episode (trainer/rl/batch.ts).
   */
  miniBatchRows: z.number().int().nonnegative().default(0),
  /** Adam learning rate. */
  lr: z.number().positive().default(3e-4),
  /**
   * Weight of negative advantages: 1 keeps the estimator's; below 1 pushes down what did worse than
   * its baseline less than it pulls up what did better (0 reinforces successes only, as RAFT/ReST).
   * A small policy's failed samples are mostly near-misses, and pushing them down hard spreads their
   * probability over tokens no sample supports.
   */
  negativeAdvantageWeight: z.number().min(0).max(1).default(1),
  /** Global gradient-norm clip. */
  maxGradNorm: z.number().positive().default(1),
  /** PPO ε_low / ε_high (clip-higher when high > low); GSPO ~100× narrower (paper 3e-4 / 4e-4; steppo: 3e-3 / 4e-3). */
  clipLow: z.number().positive().default(0.2),
  clipHigh: z.number().positive().default(0.28),
  /** Dual-clip bound c for negative advantages. */
  dualClip: z.number().min(1).default(3),
  /** β of the low-variance KL to the frozen reference policy; 0 turns it (and the reference) off. */
  klCoef: z.number().nonnegative().default(0),
  /**
   * Checkpoint folder of the KL reference; unset, the starting weights. A run resumed in segments
   * names the SFT checkpoint here, so that every segment stays near the same policy.
   */
  reference: z.string().optional(),
  /** Where the KL goes: a loss term or a per-token reward penalty. */
  klMode: z.enum(["loss", "reward"]).default("loss"),
  /** Entropy bonus coefficient. */
  entropyCoef: z.number().nonnegative().default(0),
  /** Discount γ and GAE λ. */
  gamma: z.number().min(0).max(1).default(1),
  lambda: z.number().min(0).max(1).default(1),
  /** Value-loss weight and clip (GAE / StepPO). */
  valueCoef: z.number().nonnegative().default(0.5),
  valueClip: z.number().positive().default(0.2),
  /**
   * What the value loss trains (GAE / StepPO). `shared`: the value head and, through it, the trunk it
   * shares with the policy. `detached`: the value head alone, reading the trunk through a
   * stop-gradient, its gradient clipped apart from the policy's. An unfitted value head's large
   * gradient then neither moves the policy nor, through the shared clip, shrinks the policy's step.
   */
  valueTrunk: z.enum(["shared", "detached"]).default("shared"),
  /** Normalise per-step process rewards PRIME-style (leave-one-out in the group). */
  processRewardNorm: z.enum(["none", "prime"]).default("none"),
  /**
   * What the update learns from: the env's step rewards (`env`), or only its success verdict (`success`):
   * 1 on the last step of an episode the env marks successful, 0 on every other step. For envs whose
   * reward gives partial credit (webshop's score) while success asks for all of it.
   */
  rewardFrom: z.enum(["env", "success"]).default("env"),
  /** Render the manifest's tools into prompts (long; off for the byte-level policies). */
  renderTools: z.boolean().default(false),
  /** Save a checkpoint every this many iterations (and always at the end). */
  checkpointEvery: z.number().int().positive().default(10),
  /** Trajectories per iteration written to trajectories.jsonl. */
  logTrajectories: z.number().int().nonnegative().default(4),
  /**
   * Memory a training pass may use, in MiB; unset, wasm's 4 GiB heap or this machine's RAM. A run whose
   * estimate (printed before it starts, trainer/model/memory.ts) exceeds it is refused.
   */
  memoryBudgetMiB: z.number().positive().optional(),
  /**
   * Cores to use: the main thread plus `workers − 1` worker threads, each with a copy of the policy
   * (and the KL reference), sharing every rollout round's sampling and every update's scoring and
   * minibatch gradients (trainer/parallel). Tokens and metrics do not depend on it beyond float
   * rounding; 1 runs everything on the main thread.
   */
  workers: z.number().int().positive().default(1),
  /** Model shape for a fresh start (ignored with `init`). */
  model: ModelShape,
});

/**
 * `fields` with the method named in `algorithm` applied first (algos/registry.ts): an older name
 * becomes today's, and the fields the method has values for take them unless the input sets them.
 */
export function withMethod<S extends z.ZodType>(fields: S) {
  return z.preprocess((raw) => withMethodDefaults(raw, METHODS), fields);
}

/**
 * Everything one RL run chooses. Each field has a default (the method's, else the field's own);
 * `resolveTrainConfig` applies CLI overrides and the run logs and saves the resolved result as
 * config.json.
 */
export const TrainConfig = withMethod(TrainFields);
export type TrainConfig = z.infer<typeof TrainConfig>;

export function resolveTrainConfig(
  base: Record<string, unknown>,
  overrides: readonly string[],
): Result<TrainConfig> {
  return resolveConfig(TrainConfig, base, overrides);
}
