/** Names of the advantage estimators, importable without loading tfjs (configs, CLI help). */
export const ADVANTAGE_ESTIMATORS = [
  "grpo",
  "dr-grpo",
  "rloo",
  "reinforce++",
  "reinforce++-baseline",
  "gae",
  "steppo",
] as const;
export type AdvantageEstimatorName = (typeof ADVANTAGE_ESTIMATORS)[number];
