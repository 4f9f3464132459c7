import type { ChatMessage, SessionResponse, StepInfo, TaskRef } from "../../shared/protocol.js";
import type { Result } from "../../shared/result.js";
import type { InfraFailure } from "../client/env-client.js";
import type { SampleOptions, SampleResult } from "../model/types.js";

/**
 * One step of one episode exactly as the policy saw and produced it. The ids are the training data:
 * the response ids are the sampled ids themselves, never a re-tokenization of the decoded text.
 */
export type StepRecord = {
  /** Episode number within the rollout batch. */
  episode: number;
  /** Group number: the n rollouts forked from one task's start token share it. */
  group: number;
  /** Step number within the episode, from 0. */
  step: number;
  /** Everything the model was conditioned on (chat template, observations), as ids. */
  promptIds: number[];
  /** What the model sampled, ending with the stop id when it finished on its own. */
  responseIds: number[];
  /** log π_old of each response id at sampling time. */
  responseLogprobs: number[];
  /** The action text sent to the env (the decoded response). */
  action: string;
  /** Number of tool calls in the action. */
  toolCalls: number;
  reward: number;
  done: boolean;
  truncated: boolean;
  info: StepInfo;
  /** The observation that followed (empty on the last step). */
  observation: ChatMessage[];
  /** The env's signed receipt, on the step that ended the episode. */
  receipt?: string;
};

export type Trajectory = {
  episode: number;
  /** The env's episode id (from the session), when the episode started. */
  episodeId?: string;
  group: number;
  task: TaskRef;
  steps: StepRecord[];
  /** Σ of step rewards. */
  return: number;
  /** The env's verdict on its final step (`info.success`); false when cut or failed (see episode.ts). */
  success: boolean;
  /** Cut by maxSteps or the context length instead of ending on its own. */
  truncated: boolean;
  /** Set when the env could not be reached: an infrastructure failure, not a reward of 0. */
  failure?: InfraFailure;
};

/** What the rollout needs from a policy: batched sampling (PolicyModel has it) and its context size. */
export type Generator = {
  readonly config: { contextLength: number };
  sample(prompts: readonly (readonly number[])[], opts: SampleOptions): Promise<SampleResult>;
};

export type RolloutOptions = {
  split: string;
  /** Task indices to run; each becomes one group. */
  tasks: readonly number[];
  /** Rollouts per task (GRPO/RLOO group size). */
  groupSize: number;
  /** Most episodes generating together (the continuous batch). */
  maxLive: number;
  /** Client-side step cap; the env's own limit applies too. */
  maxSteps: number;
  maxNewTokens: number;
  temperature: number;
  topP: number;
  /** Seed of the first generate call; each later call adds one. */
  seed: number;
  /** Render the manifest's tools into the prompt (long; off for the small byte-level policies). */
  renderTools: boolean;
  /** Starts a task's session; defaults to the env's `/v1/sessions` (a hub evaluation issues its own). */
  start?: StartSession;
  /** Called as each episode ends (progress). */
  onEpisode?: (t: Trajectory) => void;
};

/** Where episodes get their first session token. */
export type StartSession = (task: TaskRef) => Promise<Result<SessionResponse, InfraFailure>>;

export type RolloutStats = {
  episodes: number;
  infraFailures: number;
  envSteps: number;
  sampledTokens: number;
  sampleSeconds: number;
  envSeconds: number;
};
