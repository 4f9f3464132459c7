import type { ChatMessage, Observation, ToolSpec } from "../../shared/protocol.js";
import type { Tokenizer } from "../tokenizer/types.js";
import type { StepRecord } from "./types.js";

/**
 * An episode's conversation and the ids the model conditions on at its current turn. Rollouts and
 * demonstrations both move from turn to turn through {@link nextPrompt}, so SFT trains on the very
 * prompts the policy later samples from.
 */
export type Conversation = {
  /** Everything rendered so far; assistant turns hold the decoded responses (for logs and history). */
  messages: ChatMessage[];
  /** The chat template's rendering of `messages` plus the generation prompt, with sampled ids as sampled. */
  promptIds: number[];
};

/** The first prompt of an episode: the template on the env's opening messages. */
export function firstPrompt(
  tokenizer: Tokenizer,
  messages: readonly ChatMessage[],
  tools?: readonly ToolSpec[],
): Conversation {
  const copy = structuredClone([...messages]);
  return {
    messages: copy,
    promptIds: tokenizer.renderChat(copy, { addGenerationPrompt: true, ...(tools ? { tools } : {}) }),
  };
}

/**
 * The prompt after the model answered `conv.promptIds` with `responseIds` (whose text is `action`)
 * and the env replied with `obs`. Append mode: the previous prompt, the response ids exactly as
 * sampled (Agent-R1: no Token→Text→Token round trip), then what the template writes after them.
 * Replace mode: the template on the env's new messages alone.
 *
 * Where a template rewrites earlier assistant turns (Qwen3 drops the `<think>` block of turns
 * before the latest user query), the prompt keeps the ids the model sampled: the model conditions
 * on its own reasoning, and no sampled id is ever changed. Everything else equals the template's
 * rendering of the whole conversation (trainer/rollout/template-exact.test.ts checks it).
 */
export function nextPrompt(
  tokenizer: Tokenizer,
  conv: Conversation,
  responseIds: readonly number[],
  action: string,
  obs: Observation,
  tools?: readonly ToolSpec[],
): Conversation {
  if (obs.mode === "replace") return firstPrompt(tokenizer, obs.messages, tools);
  const next = structuredClone(obs.messages);
  const after = tokenizer.renderNextTurn(conv.messages, responseIds, next, tools ? { tools } : {});
  return {
    messages: [...conv.messages, { role: "assistant", content: action }, ...next],
    promptIds: [...conv.promptIds, ...responseIds, ...after],
  };
}

/** `step`'s prompt begins with `prefix` (the previous step's prompt ++ response): append mode. */
export function extendsPrefix(prefix: readonly number[], step: StepRecord): boolean {
  if (step.promptIds.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (step.promptIds[i] !== prefix[i]) return false;
  return true;
}
