import type { ChatMessage, ToolSpec } from "../../shared/protocol.js";
import { formatHermesCall } from "../../shared/tool-calls.js";
import type { RenderChatOptions, SpecialIds, Tokenizer } from "./types.js";

/** Special tokens after the 256 byte values, in id order. */
export const BYTE_SPECIALS = [
  "<|pad|>",
  "<|bos|>",
  "<|eos|>",
  "<|system|>",
  "<|user|>",
  "<|assistant|>",
  "<|tool|>",
  "<|end|>",
  "<tool_call>",
  "</tool_call>",
  "<tool_response>",
  "</tool_response>",
] as const;

/** Tags that decode to their text; the other specials are control tokens, dropped unless asked. */
const TEXT_TAGS = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"] as const;

/**
 * Any special's text inside a text is its one id, as every Hugging Face tokenizer.json (and so the
 * checkpoint's own, and Qwen's) treats added tokens: the ids are the same in transformers.
 */
const SPECIAL_TEXT = new RegExp(`(${BYTE_SPECIALS.map((t) => t.replaceAll("|", "\\|")).join("|")})`);

export const BYTE_VOCAB_SIZE = 256 + BYTE_SPECIALS.length;

const id = (token: (typeof BYTE_SPECIALS)[number]): number => 256 + BYTE_SPECIALS.indexOf(token);

const ROLE_IDS: Record<ChatMessage["role"], number> = {
  system: id("<|system|>"),
  user: id("<|user|>"),
  assistant: id("<|assistant|>"),
  tool: id("<|tool|>"),
};

/**
 * UTF-8 bytes plus special tokens for chat roles and tool tags. A turn renders as
 * `<|role|> content <|end|>`, so renderings concatenate: the ids of a conversation are the ids of its
 * turns one after another, which is what lets rollouts append observations to sampled ids.
 */
export class ByteTokenizer implements Tokenizer {
  readonly kind = "byte";
  readonly vocabSize = BYTE_VOCAB_SIZE;
  readonly special: SpecialIds = {
    bos: id("<|bos|>"),
    eos: id("<|eos|>"),
    pad: id("<|pad|>"),
    endOfTurn: id("<|end|>"),
  };
  readonly specialTokens: ReadonlyMap<string, number> = new Map(BYTE_SPECIALS.map((t, i) => [t, 256 + i]));
  readonly stopIds: readonly number[] = [this.special.endOfTurn, this.special.eos];
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();

  encode(text: string): number[] {
    const ids: number[] = [];
    // split with a capture group alternates text and specials: odd indexes are specials.
    text.split(SPECIAL_TEXT).forEach((part, i) => {
      if (i % 2 === 1) ids.push(this.specialTokens.get(part) as number);
      else for (const byte of this.encoder.encode(part)) ids.push(byte);
    });
    return ids;
  }

  decode(ids: readonly number[], opts: { keepControl?: boolean } = {}): string {
    let out = "";
    let bytes: number[] = [];
    const flush = () => {
      out += this.decoder.decode(new Uint8Array(bytes));
      bytes = [];
    };
    for (const i of ids) {
      if (i >= 0 && i < 256) {
        bytes.push(i);
        continue;
      }
      flush();
      const token = BYTE_SPECIALS[i - 256];
      if (token === undefined) continue;
      if (opts.keepControl || (TEXT_TAGS as readonly string[]).includes(token)) out += token;
    }
    flush();
    return out;
  }

  renderChat(messages: readonly ChatMessage[], opts: RenderChatOptions): number[] {
    return [this.special.bos, ...this.renderTurns(messages, opts.addGenerationPrompt, opts.tools)];
  }

  /**
   * Turns concatenate, so the next turn is the close (when the response did not end with a stop id)
   * and `next` rendered alone; the history is not needed. Tools are only rendered into a system
   * message that opens the conversation.
   */
  renderNextTurn(
    _history: readonly ChatMessage[],
    responseIds: readonly number[],
    next: readonly ChatMessage[],
  ) {
    const last = responseIds.at(-1);
    const close = last !== undefined && this.stopIds.includes(last) ? [] : [this.special.endOfTurn];
    return [...close, ...this.renderTurns(next, true, undefined)];
  }

  /** `<|role|> text <|end|>` per message; tools go into a system message that opens a conversation. */
  private renderTurns(
    messages: readonly ChatMessage[],
    addGenerationPrompt: boolean,
    tools: readonly ToolSpec[] | undefined,
  ): number[] {
    const ids: number[] = [];
    messages.forEach((m, i) => {
      const t = i === 0 && m.role === "system" ? tools : undefined;
      // One push per id: spreading a long message into `push` would put every id on the call stack.
      ids.push(ROLE_IDS[m.role]);
      for (const x of this.encode(messageText(m, t))) ids.push(x);
      ids.push(this.special.endOfTurn);
    });
    if (addGenerationPrompt) ids.push(ROLE_IDS.assistant);
    return ids;
  }
}

function messageText(m: ChatMessage, tools: readonly ToolSpec[] | undefined): string {
  switch (m.role) {
    case "assistant": {
      const calls = (m.tool_calls ?? []).map((c) =>
        formatHermesCall(c.function.name, parseArgs(c.function.arguments)),
      );
      return [m.content ?? "", ...calls].filter((s) => s !== "").join("\n");
    }
    case "tool":
      return `<tool_response>\n${m.content}\n</tool_response>`;
    case "system":
      return tools && tools.length > 0
        ? `${m.content}\nTools: ${JSON.stringify(tools.map((t) => t.function))}`
        : m.content;
    default:
      return m.content;
  }
}

function parseArgs(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
