import type { ToolCall } from "../../shared/protocol.js";
import { parseHermesCalls, stripToolCalls } from "../../shared/tool-calls.js";
import type { Tokenizer } from "../tokenizer/types.js";

const CALL_OPEN = "<tool_call>";

/**
 * One choice's text as its tokens arrive: decoded in full each time (a token may be half a UTF-8
 * character or merge with its neighbour, so per-token decoding would not add up), cut at the first
 * stop string, and streamed only as far as it is certain: text that may be the start of a stop string
 * or of a `<tool_call>` block is held back until the next token settles it. With tools, nothing after
 * a `<tool_call>` is streamed as content; the block becomes `tool_calls` at the end.
 */
export class ChoiceText {
  private readonly tokens: number[] = [];
  private text = "";
  private sent = 0;
  /** A stop string was found; the text ends before it. */
  stoppedByString = false;

  constructor(
    private readonly tokenizer: Tokenizer,
    private readonly stops: readonly string[],
    private readonly parseTools: boolean,
  ) {}

  get count(): number {
    return this.tokens.length;
  }

  /** Adds a token; true when a stop string now ends the choice. */
  push(token: number): boolean {
    if (this.stoppedByString) return true;
    this.tokens.push(token);
    const text = this.tokenizer.decode(this.tokens);
    const at = this.stops.reduce((best, s) => {
      const i = text.indexOf(s);
      return i >= 0 && (best < 0 || i < best) ? i : best;
    }, -1);
    this.text = at >= 0 ? text.slice(0, at) : text;
    this.stoppedByString = at >= 0;
    return this.stoppedByString;
  }

  /** New content that is certain, for a stream (empty when nothing is). */
  delta(final = false): string {
    let visible = this.text;
    if (this.parseTools) {
      const call = visible.indexOf(CALL_OPEN);
      if (call >= 0) visible = visible.slice(0, call);
    }
    let safe = visible.length;
    if (!final && !this.stoppedByString) {
      // An incomplete UTF-8 sequence decodes as U+FFFD until its last byte arrives.
      if (visible.endsWith("\uFFFD")) safe--;
      const markers = this.parseTools ? [...this.stops, CALL_OPEN] : this.stops;
      safe = Math.min(safe, visible.length - heldBack(visible, markers));
    }
    if (safe <= this.sent) return "";
    const out = visible.slice(this.sent, safe);
    this.sent = safe;
    return out;
  }

  /** The whole choice as an OpenAI message: its text, or its tool calls when every block parses. */
  message(newId: () => string): { content: string | null; toolCalls: ToolCall[] } {
    if (!this.parseTools || !this.text.includes(CALL_OPEN)) return { content: this.text, toolCalls: [] };
    const calls = parseHermesCalls(this.text);
    // A block that does not parse stays text: the client sees what the model wrote.
    if (calls.length === 0 || calls.some((c) => !c.ok)) return { content: this.text, toolCalls: [] };
    const toolCalls = calls.flatMap((c) =>
      c.ok
        ? [
            {
              id: newId(),
              type: "function" as const,
              function: { name: c.name, arguments: JSON.stringify(c.arguments) },
            },
          ]
        : [],
    );
    const rest = stripToolCalls(this.text);
    return { content: rest === "" ? null : rest, toolCalls };
  }

  /** Text streamed so far, for a stream whose tool blocks failed to parse (sent as content at the end). */
  unsent(): string {
    return this.text.slice(this.sent);
  }
}

/** Length of the longest end of `text` that begins one of `markers` without completing it. */
function heldBack(text: string, markers: readonly string[]): number {
  let held = 0;
  for (const m of markers) {
    for (let k = Math.min(m.length - 1, text.length); k > held; k--) {
      if (text.endsWith(m.slice(0, k))) {
        held = k;
        break;
      }
    }
  }
  return held;
}
