import type {
  ChatMessage,
  Observation,
  SessionResponse,
  StepResult,
  TaskRef,
  ToolSpec,
} from "../../shared/protocol.js";
import { stepSuccess } from "../../shared/success.js";
import type { InfraFailure } from "../client/env-client.js";
import type { Tokenizer } from "../tokenizer/types.js";
import { type Conversation, firstPrompt, nextPrompt } from "./prompt.js";
import type { StepRecord, Trajectory } from "./types.js";

/** Where an episode sits in its batch. */
export type EpisodeId = { episode: number; group: number; task: TaskRef };

/** What the policy produced for one step: the record's policy half (ids are empty for remote models). */
export type Sampled = Pick<
  StepRecord,
  "promptIds" | "responseIds" | "responseLogprobs" | "action" | "toolCalls"
>;

/**
 * How a policy's context moves from turn to turn: token ids through the chat template for the
 * in-process policy ({@link Conversation} via `nextPrompt`), chat messages for a remote one.
 */
export type ContextRules<C, S extends Sampled = Sampled> = {
  first(messages: readonly ChatMessage[]): C;
  next(context: C, sampled: S, obs: Observation): C;
};

/**
 * One episode, as every loop runs it (rollouts, demonstrations, remote evaluation): start from a
 * session, record each step, apply each observation to the context, finish. Success is the env's
 * verdict on the final step (`info.success`, see shared/success.ts), never recomputed here.
 */
export class Episode<C, S extends Sampled = Sampled> {
  readonly steps: StepRecord[] = [];
  /** The token the next step is sent with. */
  session: string;
  /** What the policy conditions on now. */
  context: C;
  readonly episodeId: string;

  constructor(
    readonly id: EpisodeId,
    started: Pick<SessionResponse, "session" | "episodeId" | "observation">,
    private readonly rules: ContextRules<C, S>,
  ) {
    this.session = started.session;
    this.episodeId = started.episodeId;
    this.context = rules.first(started.observation.messages);
  }

  /** An episode whose session never started: an infrastructure failure with no steps. */
  static failed(id: EpisodeId, failure: InfraFailure): Trajectory {
    return { ...id, steps: [], return: 0, success: false, truncated: false, failure };
  }

  /** Records the env's answer to `sampled`; unless it ended the episode, applies its observation. */
  record(sampled: S, result: StepResult): StepRecord {
    const record: StepRecord = {
      episode: this.id.episode,
      group: this.id.group,
      step: this.steps.length,
      promptIds: sampled.promptIds,
      responseIds: sampled.responseIds,
      responseLogprobs: sampled.responseLogprobs,
      action: sampled.action,
      toolCalls: sampled.toolCalls,
      reward: result.reward,
      done: result.done,
      truncated: result.truncated,
      info: result.info,
      observation: result.done ? [] : result.observation.messages,
      ...(result.receipt ? { receipt: result.receipt } : {}),
    };
    this.steps.push(record);
    if (!result.done) {
      this.context = this.rules.next(this.context, sampled, result.observation);
      this.session = result.session;
    }
    return record;
  }

  /** The env ended the episode (its last step is done). */
  get ended(): boolean {
    return this.steps.at(-1)?.done === true;
  }

  /**
   * The trajectory. With `failure` the env could not be reached (not a reward of 0). An episode the
   * env did not end was cut here (step cap, context length): its last step is marked truncated.
   */
  finish(failure?: InfraFailure): Trajectory {
    const last = this.steps.at(-1);
    const cut = failure === undefined && !this.ended;
    if (cut && last) last.truncated = true;
    return {
      ...this.id,
      episodeId: this.episodeId,
      steps: this.steps,
      return: this.steps.reduce((a, s) => a + s.reward, 0),
      success: failure === undefined && last !== undefined && stepSuccess(last),
      truncated: failure === undefined && (cut || last?.truncated === true),
      ...(failure ? { failure } : {}),
    };
  }
}

/**
 * Context rules over chat messages (remote models): an appended observation follows the assistant
 * turn, a replaced one is the whole new context. `shown` filters what the model sees of env text.
 */
export function messageRules(
  shown: (m: readonly ChatMessage[]) => ChatMessage[] = (m) => [...m],
): ContextRules<ChatMessage[], Sampled & { assistant: ChatMessage }> {
  return {
    first: (messages) => shown(messages),
    next: (messages, sampled, obs) =>
      obs.mode === "replace" ? shown(obs.messages) : [...messages, sampled.assistant, ...shown(obs.messages)],
  };
}

/**
 * Context rules for the in-process policy: token ids through the chat template, turn by turn, with
 * {@link firstPrompt} and {@link nextPrompt} (sampled ids kept as sampled).
 */
export function promptRules(tokenizer: Tokenizer, tools?: readonly ToolSpec[]): ContextRules<Conversation> {
  return {
    first: (messages) => firstPrompt(tokenizer, messages, tools),
    next: (conv, s, obs) => nextPrompt(tokenizer, conv, s.responseIds, s.action, obs, tools),
  };
}
