import {
  type AdvantageInput,
  type AdvantageOptions,
  type AdvantageOutput,
  drGrpo,
  grpo,
  reinforcePlusPlus,
  reinforcePlusPlusBaseline,
  rloo,
} from "./advantages.js";
import { gae, steppo } from "./gae.js";
import type { AdvantageEstimatorName } from "./names.js";

export * from "./advantages.js";
export * from "./aggregate.js";
export * from "./gae.js";
export * from "./names.js";
export * from "./policy-loss.js";
export * from "./process-rewards.js";
export * from "./registry.js";
export * from "./regularizers.js";
export { stopGradient } from "./stop-gradient.js";

/** An advantage estimator: rewards (and values, for a critic) in, advantages and value targets out. */
export type Estimator = (input: AdvantageInput, opts: AdvantageOptions) => Promise<AdvantageOutput>;

/**
 * Every advantage estimator by its name (names.ts lists them with the critic each reads; the method
 * registry, registry.ts, picks one per method).
 */
export const advantageEstimators = {
  grpo,
  "dr-grpo": drGrpo,
  rloo,
  "reinforce++": reinforcePlusPlus,
  "reinforce++-baseline": reinforcePlusPlusBaseline,
  gae,
  steppo,
} as const satisfies Record<AdvantageEstimatorName, Estimator>;
