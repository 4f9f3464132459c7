import { deeperThan, MAX_JSON_DEPTH } from "./json-depth.js";
import type { ChatMessage, ToolCall, ToolCallInput } from "./protocol.js";

/**
 * A tool call as the environment understands it after parsing. A call that could not be parsed is
 * kept (with the reason) so that the model is told what was wrong instead of being ignored.
 */
export type ParsedCall =
  | { ok: true; id: string; name: string; arguments: unknown }
  | { ok: false; id: string; name?: string; error: string };

const OPEN = "<tool_call>";
const CLOSE = "</tool_call>";

/** The text of the action outside its tool-call blocks: the model's reasoning or its final answer. */
export function stripToolCalls(content: string): string {
  let out = "";
  let from = 0;
  for (;;) {
    const start = content.indexOf(OPEN, from);
    if (start < 0) return (out + content.slice(from)).trim();
    out += content.slice(from, start);
    const end = content.indexOf(CLOSE, start + OPEN.length);
    if (end < 0) return out.trim();
    from = end + CLOSE.length;
  }
}

/**
 * Parses Hermes `<tool_call>{"name": ..., "arguments": ...}</tool_call>` blocks from raw text.
 * Tolerant like Agent-R1: `arguments` may be an object or a JSON string; an unterminated block or bad
 * JSON becomes a failed call rather than an exception.
 */
export function parseHermesCalls(content: string): ParsedCall[] {
  const calls: ParsedCall[] = [];
  let from = 0;
  for (;;) {
    const start = content.indexOf(OPEN, from);
    if (start < 0) return calls;
    const id = `call_${calls.length}`;
    const bodyStart = start + OPEN.length;
    const end = content.indexOf(CLOSE, bodyStart);
    if (end < 0) {
      calls.push({ ok: false, id, error: "unterminated <tool_call> block: expected </tool_call>" });
      return calls;
    }
    calls.push(parseCallBody(content.slice(bodyStart, end), id));
    from = end + CLOSE.length;
  }
}

function parseCallBody(body: string, id: string): ParsedCall {
  let value: unknown;
  try {
    value = JSON.parse(body.trim());
  } catch {
    return { ok: false, id, error: "tool call is not valid JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, id, error: 'tool call must be a JSON object {"name": ..., "arguments": {...}}' };
  }
  const record = value as Record<string, unknown>;
  if (typeof record.name !== "string" || record.name.length === 0) {
    return { ok: false, id, error: 'tool call needs a string "name"' };
  }
  return decodeArguments(id, record.name, record.arguments ?? record.parameters ?? {});
}

function decodeArguments(id: string, name: string, raw: unknown): ParsedCall {
  if (typeof raw !== "string") return bounded(id, name, raw);
  if (raw.trim() === "") return { ok: true, id, name, arguments: {} };
  let args: unknown;
  try {
    args = JSON.parse(raw);
  } catch {
    return { ok: false, id, name, error: "tool call arguments are not valid JSON" };
  }
  return bounded(id, name, args);
}

/** Arguments the model wrote too deeply nested fail as a call, before any code walks them recursively. */
function bounded(id: string, name: string, args: unknown): ParsedCall {
  if (!deeperThan(args)) return { ok: true, id, name, arguments: args };
  return { ok: false, id, name, error: `tool call arguments may nest at most ${MAX_JSON_DEPTH} levels` };
}

/** Normalises OpenAI tool_calls, giving each an id when the client left it out. */
export function parseOpenAICalls(toolCalls: readonly ToolCallInput[]): ParsedCall[] {
  return toolCalls.map((call, i) =>
    decodeArguments(call.id ?? `call_${i}`, call.function.name, call.function.arguments),
  );
}

/**
 * Renders one call as a Hermes block, the inverse of `parseHermesCalls`. A `</tool_call>` inside a
 * string would end the block early, so its `/` is written as the JSON escape `\/`.
 */
export function formatHermesCall(name: string, args: unknown): string {
  const json = JSON.stringify({ name, arguments: args }).replaceAll(CLOSE, "<\\/tool_call>");
  return `${OPEN}${json}${CLOSE}`;
}

/** Renders one call in the OpenAI wire shape. */
export function formatOpenAICall(id: string, name: string, args: unknown): ToolCall {
  return { id, type: "function", function: { name, arguments: JSON.stringify(args) } };
}

export type ToolResponse = { id: string; name: string; content: string };

/**
 * Tool results as the next observation: Hermes puts them in one user message of `<tool_response>`
 * blocks; OpenAI-style actions get one `tool` message per call.
 */
export function formatToolResponses(
  responses: readonly ToolResponse[],
  style: "hermes" | "openai",
): ChatMessage[] {
  if (style === "openai") {
    return responses.map((r) => ({ role: "tool", tool_call_id: r.id, name: r.name, content: r.content }));
  }
  const body = responses.map((r) => `<tool_response>\n${r.content}\n</tool_response>`).join("\n");
  return [{ role: "user", content: body }];
}
