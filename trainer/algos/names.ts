/**
 * The names of the algorithms' interchangeable parts, importable without loading tfjs (configs, CLI
 * help, the method registry). The implementations are keyed by these names with `satisfies Record<…>`
 * (index.ts, policy-loss.ts), so a name without an implementation, or the reverse, does not compile.
 */

/** Which value head an estimator reads: none, one value per response token, or one per step. */
export type Critic = "none" | "token" | "step";

/** Every advantage estimator and the critic it reads (the update trains the value head for it). */
export const ESTIMATOR_CRITICS = {
  grpo: "none",
  "dr-grpo": "none",
  rloo: "none",
  "reinforce++": "none",
  "reinforce++-baseline": "none",
  gae: "token",
  steppo: "step",
} as const satisfies Record<string, Critic>;
export type AdvantageEstimatorName = keyof typeof ESTIMATOR_CRITICS;
export const ADVANTAGE_ESTIMATORS = Object.keys(ESTIMATOR_CRITICS) as [
  AdvantageEstimatorName,
  ...AdvantageEstimatorName[],
];

/** Policy losses: PPO's clip on the token ratio, GSPO's on the sequence geometric-mean ratio. */
export const POLICY_LOSSES = ["ppo", "gspo"] as const;
export type PolicyLossName = (typeof POLICY_LOSSES)[number];

/** How a per-token loss matrix becomes one scalar (aggregate.ts has the formulas). */
export const LOSS_AGGREGATIONS = ["token-mean", "seq-mean-token-mean", "seq-mean-token-sum"] as const;
export type LossAggregation = (typeof LOSS_AGGREGATIONS)[number];
