/** The tokenizer interface the trainer codes against; byte-tokenizer.ts and hf-tokenizer.ts implement it. */
import type { ChatMessage, ToolSpec } from "../../shared/protocol.js";

/** Ids of the control tokens every tokenizer must have. */
export interface SpecialIds {
  bos: number;
  eos: number;
  pad: number;
  /** Closes a chat turn; the usual stop id for sampling (e.g. `<|im_end|>`). */
  endOfTurn: number;
}

export interface RenderChatOptions {
  /** Append the header that opens an assistant turn, so the model continues as the assistant. */
  addGenerationPrompt: boolean;
  /** Tools offered to the model; templates that support tools render them in the system turn. */
  tools?: readonly ToolSpec[];
}

export interface Tokenizer {
  readonly kind: "byte" | "hf";
  readonly vocabSize: number;
  readonly special: SpecialIds;
  /** Id of every special token by its text, e.g. `"<tool_call>"`, `"<|user|>"`. */
  readonly specialTokens: ReadonlyMap<string, number>;
  /** Plain text to ids (special-token text such as `<tool_call>` maps to its single id). */
  encode(text: string): number[];
  /**
   * Ids to text. Tool tags decode to their text; control tokens (bos, eos, pad, role headers,
   * end-of-turn) are dropped unless `keepControl`.
   */
  decode(ids: readonly number[], opts?: { keepControl?: boolean }): string;
  /** A conversation through the chat template, as ids. */
  renderChat(messages: readonly ChatMessage[], opts: RenderChatOptions): number[];
  /**
   * The ids that follow a prompt once the model answered it with `responseIds`: what the chat
   * template writes after the response (the turn's close, unless the sampled ids already end with
   * it), the `next` messages and the generation prompt. `history` is the conversation that prompt
   * rendered. Prompt + response + these ids equal, id for id, the template's rendering of
   * `[...history, response, ...next]` with the response's sampled ids where its text would go:
   * responses are never re-rendered or re-tokenized (see trainer/rollout/prompt.ts).
   */
  renderNextTurn(
    history: readonly ChatMessage[],
    responseIds: readonly number[],
    next: readonly ChatMessage[],
    opts?: { tools?: readonly ToolSpec[] },
  ): number[];
  /** Ids that end generation: end-of-turn and eos. */
  readonly stopIds: readonly number[];
}
