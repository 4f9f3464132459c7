import type { ChatMessage } from "../../shared/protocol.js";
import { parseHermesCalls } from "../../shared/tool-calls.js";

/**
 * How a remote (`openai:`) policy calls tools, one format per run:
 * - `openai`: the manifest's tools go in the request's `tools` and the model answers with `tool_calls`;
 *   the env's own prompts, written for text policies, show Hermes `<tool_call>` examples, so those are
 *   rewritten as plain calls (`calculator({"expression":"2*(3+4)"})`) and the model is not asked for
 *   two formats at once;
 * - `hermes`: no `tools` in the request; the env's prompts are sent as they are and the model writes
 *   `<tool_call>{…}</tool_call>` text, which the env parses.
 */
export const TOOL_FORMATS = ["openai", "hermes"] as const;
export type ToolFormat = (typeof TOOL_FORMATS)[number];

/** The line eval prints so that a run says which format it used. */
export function describeToolFormat(format: ToolFormat): string {
  return format === "openai"
    ? "tool format: openai (tools passed as OpenAI tools; the env's <tool_call> examples shown as calls)"
    : "tool format: hermes (no OpenAI tools; the model writes <tool_call> text as the env's prompt asks)";
}

const BLOCK = /<tool_call>([\s\S]*?)<\/tool_call>/g;

/** A message's Hermes `<tool_call>` examples as `name(arguments)`; other text is unchanged. */
export function withoutHermesExamples(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((m) => {
    if ((m.role !== "system" && m.role !== "user") || typeof m.content !== "string") return m;
    if (!m.content.includes("<tool_call>")) return m;
    const content = m.content.replace(BLOCK, (block) => {
      const call = parseHermesCalls(block)[0];
      return call?.ok ? `${call.name}(${JSON.stringify(call.arguments)})` : block;
    });
    return { ...m, content };
  });
}
