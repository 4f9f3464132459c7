import type { StepRecord, Trajectory } from "../rollout/types.js";

/** A step record for tests: a 3-id prompt and 2-id response unless `over` says otherwise. */
export const stepRecord = (over: Partial<StepRecord> = {}): StepRecord => ({
  episode: 0,
  group: 0,
  step: 0,
  promptIds: [1, 2, 3],
  responseIds: [4, 5],
  responseLogprobs: [-1, -1],
  action: "",
  toolCalls: 0,
  reward: 0,
  done: false,
  truncated: false,
  info: { reward_components: {} },
  observation: [],
  ...over,
});

/** A finished trajectory of `steps` for tests, scored by its last step's reward. */
export const trajectory = (steps: StepRecord[], over: Partial<Trajectory> = {}): Trajectory => {
  const reward = steps.at(-1)?.reward ?? 0;
  return {
    episode: steps[0]?.episode ?? 0,
    group: steps[0]?.group ?? 0,
    task: { split: "train", index: steps[0]?.group ?? 0 },
    steps,
    return: reward,
    success: reward > 0,
    truncated: false,
    ...over,
  };
};
