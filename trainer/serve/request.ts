import { z } from "zod";
import type { ChatMessage, ToolSpec } from "../../shared/protocol.js";

/**
 * The part of OpenAI's chat-completions request `edgegym serve` implements. The object is strict:
 * a parameter this server would ignore (logprobs, response_format, penalties…) is refused by name,
 * as OpenAI refuses unknown arguments, rather than silently changing what the client asked for.
 */

/** Message text: a string, or OpenAI's list of parts of which only text parts are served. */
const Text = z.union([
  z.string(),
  z
    .array(z.strictObject({ type: z.literal("text"), text: z.string() }))
    .transform((parts) => parts.map((p) => p.text).join("")),
]);

const ToolCallOut = z.object({
  id: z.string(),
  type: z.literal("function"),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

const Message = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: Text, name: z.string().optional() }),
  // OpenAI's newer name for the system role.
  z.object({ role: z.literal("developer"), content: Text, name: z.string().optional() }),
  z.object({ role: z.literal("user"), content: Text, name: z.string().optional() }),
  z.object({
    role: z.literal("assistant"),
    content: Text.nullish(),
    name: z.string().optional(),
    tool_calls: z.array(ToolCallOut).optional(),
  }),
  z.object({ role: z.literal("tool"), tool_call_id: z.string(), content: Text }),
]);

const Tool = z.strictObject({
  type: z.literal("function"),
  function: z.strictObject({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "must be 1-64 letters, digits, _ or -"),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
});

export const ChatCompletionRequest = z.strictObject({
  model: z.string().min(1),
  messages: z.array(Message).min(1),
  tools: z.array(Tool).optional(),
  /** "auto" parses `<tool_call>` blocks into tool_calls; "none" returns the text as it is. */
  tool_choice: z.enum(["none", "auto"]).optional(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  stop: z
    .union([z.string().min(1), z.array(z.string().min(1)).max(4)])
    .nullish()
    .transform((s) => (s == null ? [] : typeof s === "string" ? [s] : s)),
  seed: z.number().int().nullish(),
  n: z.number().int().min(1).max(8).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.strictObject({ include_usage: z.boolean().optional() }).nullish(),
  /** Accepted for compatibility; they change nothing here. */
  user: z.string().optional(),
  parallel_tool_calls: z.boolean().optional(),
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;

/** The request's tools as the chat template takes them (the manifest's ToolSpec shape). */
export function toolSpecs(req: ChatCompletionRequest): ToolSpec[] {
  return (req.tools ?? []).map((t) => ({
    type: "function",
    function: {
      name: t.function.name,
      description: t.function.description ?? "",
      parameters: t.function.parameters ?? {},
    },
  }));
}

/** OpenAI messages as the tokenizer renders them; `developer` is a system turn. */
export function chatMessages(req: ChatCompletionRequest): ChatMessage[] {
  return req.messages.map((m): ChatMessage => {
    switch (m.role) {
      case "developer":
      case "system":
        return { role: "system", content: m.content };
      case "user":
        return { role: "user", content: m.content };
      case "assistant":
        return {
          role: "assistant",
          // OpenAI clients send null beside tool_calls; jinja templates (Qwen3's) do string tests on it.
          content: m.content ?? "",
          ...(m.tool_calls && m.tool_calls.length > 0 ? { tool_calls: m.tool_calls } : {}),
        };
      default:
        return { role: "tool", tool_call_id: m.tool_call_id, content: m.content };
    }
  });
}
