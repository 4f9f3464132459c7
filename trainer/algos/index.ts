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
import { policyLosses } from "./policy-loss.js";

export * from "./advantages.js";
export * from "./aggregate.js";
export * from "./gae.js";
export * from "./names.js";
export * from "./policy-loss.js";
export * from "./process-rewards.js";
export * from "./regularizers.js";
export { stopGradient } from "./stop-gradient.js";

type Estimator = {
  run: (input: AdvantageInput, opts: AdvantageOptions) => AdvantageOutput;
  /** Whether the estimator reads a value head (and so the trainer must train one). */
  critic: "none" | "token" | "step";
};

/** Every advantage estimator by the name the config uses. */
export const advantageEstimators = {
  grpo: { run: grpo, critic: "none" },
  "dr-grpo": { run: drGrpo, critic: "none" },
  rloo: { run: rloo, critic: "none" },
  "reinforce++": { run: reinforcePlusPlus, critic: "none" },
  "reinforce++-baseline": { run: reinforcePlusPlusBaseline, critic: "none" },
  gae: { run: gae, critic: "token" },
  steppo: { run: steppo, critic: "step" },
} as const satisfies Record<AdvantageEstimatorName, Estimator>;

/** The registry the config resolves names against. */
export const algos = { advantageEstimators, policyLosses } as const;
