import { serve } from "@hono/node-server";
import { Hono } from "hono";

/** A chat completion request as the fake model reads it. */
export type ChatRequest = {
  model: string;
  messages: { role: string; content?: string; tool_call_id?: string }[];
  tools: { function: { name: string } }[];
};

/**
 * A small OpenAI-compatible chat server for tests: on a fresh conversation it calls the calculator
 * with `expression`; once it has a tool result it answers "#### <result>". `seen` keeps every request.
 */
export function fakeChatModel(expression: string) {
  const seen: ChatRequest[] = [];
  const app = new Hono();
  app.post("/v1/chat/completions", async (c) => {
    const body = (await c.req.json()) as ChatRequest;
    seen.push(body);
    const last = body.messages.at(-1);
    const message =
      last?.role === "tool"
        ? { role: "assistant", content: `#### ${last.content}` }
        : {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: `call_${seen.length}`,
                type: "function",
                function: { name: "calculator", arguments: JSON.stringify({ expression }) },
              },
            ],
          };
    return c.json({
      id: "cmpl",
      object: "chat.completion",
      created: 0,
      model: body.model,
      choices: [{ index: 0, message, finish_reason: last?.role === "tool" ? "stop" : "tool_calls" }],
    });
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  return { seen, server };
}
