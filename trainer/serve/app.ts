import { randomBytes } from "node:crypto";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { streamSSE } from "hono/streaming";
import type { Tokenizer } from "../tokenizer/types.js";
import type { Batcher, Choice } from "./batcher.js";
import { ChoiceText } from "./choice-text.js";
import { fromZod, type OpenAIError, openAIError } from "./openai-error.js";
import { ChatCompletionRequest, chatMessages, toolSpecs } from "./request.js";
import { requestGuard } from "./request-guard.js";

export type ServeOptions = {
  /** The id `/v1/models` lists and every response names. Requests may name any model: there is one. */
  modelId: string;
  tokenizer: Tokenizer;
  contextLength: number;
  batcher: Batcher;
  /** The address the server is bound to: requests naming another `Host` are refused (request-guard.ts). */
  host: string;
  /** Unix seconds, for `created` (a test passes a fixed clock). */
  now?: () => number;
};

const MAX_BODY = 4 * 1024 * 1024;
const hex = (bytes: number) => randomBytes(bytes).toString("hex");

/**
 * An OpenAI-compatible server for one checkpoint: `GET /v1/models`, `POST /v1/chat/completions`
 * (plain and `stream: true`). The prompt is the checkpoint's chat template over the request's
 * messages and tools (`Tokenizer.renderChat`, the path the trainer's rollouts take), so a served
 * model sees what it was trained on. With `tools` (and tool_choice not "none"), Hermes `<tool_call>`
 * blocks in the output come back as `tool_calls`.
 */
export function createServeApp(opts: ServeOptions): Hono {
  const now = opts.now ?? (() => Math.floor(Date.now() / 1000));
  const app = new Hono();
  const fail = (e: OpenAIError) => new Response(JSON.stringify(e.body), jsonHeaders(e.status));

  app.use("*", requestGuard(opts.host, fail));

  app.get("/v1/models", (c) => c.json({ object: "list", data: [modelCard(opts.modelId, now())] }));
  app.get("/v1/models/:id", (c) =>
    c.req.param("id") === opts.modelId
      ? c.json(modelCard(opts.modelId, now()))
      : fail(openAIError(404, `The model '${c.req.param("id")}' does not exist`, "model_not_found", "model")),
  );

  app.post(
    "/v1/chat/completions",
    bodyLimit({
      maxSize: MAX_BODY,
      onError: () => fail(openAIError(413, `request body over ${MAX_BODY} bytes`, "body_too_large")),
    }),
    async (c) => {
      let raw: unknown;
      try {
        raw = JSON.parse(await c.req.text());
      } catch {
        return fail(openAIError(400, "We could not parse the JSON body of your request.", "invalid_json"));
      }
      const parsed = ChatCompletionRequest.safeParse(raw);
      if (!parsed.success) return fail(fromZod(parsed.error, raw));
      const req = parsed.data;
      const tools = toolSpecs(req);
      let prompt: number[];
      try {
        prompt = opts.tokenizer.renderChat(chatMessages(req), {
          addGenerationPrompt: true,
          ...(tools.length > 0 ? { tools } : {}),
        });
      } catch (e) {
        const why = e instanceof Error ? e.message : String(e);
        return fail(
          openAIError(400, `the chat template refused the messages: ${why}`, "template_error", "messages"),
        );
      }
      const asked = req.max_completion_tokens ?? req.max_tokens ?? undefined;
      const maxTokens = asked ?? opts.contextLength - prompt.length;
      if (maxTokens < 1 || prompt.length + maxTokens > opts.contextLength)
        return fail(overContext(prompt.length, asked, opts.contextLength));

      const n = req.n ?? 1;
      const parseTools = tools.length > 0 && req.tool_choice !== "none";
      const texts = Array.from({ length: n }, () => new ChoiceText(opts.tokenizer, req.stop, parseTools));
      const base = {
        id: `chatcmpl-${hex(12)}`,
        created: now(),
        model: opts.modelId,
        system_fingerprint: null,
      };
      const job = {
        prompt,
        n,
        maxTokens,
        temperature: req.temperature ?? 1,
        topP: req.top_p ?? 1,
        ...(req.seed != null ? { seed: req.seed } : {}),
      };
      const finishReason = (text: ChoiceText, choice: Choice, calls: number) =>
        calls > 0 ? "tool_calls" : choice.stopped || text.stoppedByString ? "stop" : "length";
      const usage = (choices: Choice[]) => {
        const completion = choices.reduce((a, ch) => a + ch.tokens.length, 0);
        return {
          prompt_tokens: prompt.length,
          completion_tokens: completion,
          total_tokens: prompt.length + completion,
        };
      };

      if (!req.stream) {
        const choices = await opts.batcher.submit({
          ...job,
          onToken: (i, token) => (texts[i] as ChoiceText).push(token),
        });
        return c.json({
          ...base,
          object: "chat.completion",
          choices: choices.map((ch, index) => {
            const text = texts[index] as ChoiceText;
            const { content, toolCalls } = text.message(() => `call_${hex(12)}`);
            return {
              index,
              message: {
                role: "assistant",
                content,
                refusal: null,
                ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
              },
              logprobs: null,
              finish_reason: finishReason(text, ch, toolCalls.length),
            };
          }),
          usage: usage(choices),
        });
      }

      return streamSSE(c, async (stream) => {
        let gone = false;
        stream.onAbort(() => {
          gone = true;
        });
        const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
          stream.writeSSE({
            data: JSON.stringify({ ...base, object: "chat.completion.chunk", choices, ...extra }),
          });
        const delta = (index: number, d: Record<string, unknown>, finish: string | null = null) =>
          chunk([{ index, delta: d, logprobs: null, finish_reason: finish }]);
        // Writes are chained so that chunks leave in the order the tokens came.
        let writes: Promise<unknown> = Promise.resolve();
        for (let i = 0; i < n; i++) writes = writes.then(() => delta(i, { role: "assistant", content: "" }));
        try {
          const choices = await opts.batcher.submit({
            ...job,
            onToken: (i, token) => {
              const text = texts[i] as ChoiceText;
              const ended = text.push(token);
              const d = text.delta();
              if (d !== "") writes = writes.then(() => delta(i, { content: d }));
              return ended || gone;
            },
          });
          await writes;
          for (const [index, ch] of choices.entries()) {
            const text = texts[index] as ChoiceText;
            const { toolCalls } = text.message(() => `call_${hex(12)}`);
            const rest = toolCalls.length > 0 ? text.delta(true) : text.delta(true) + text.unsent();
            if (rest !== "") await delta(index, { content: rest });
            if (toolCalls.length > 0)
              await delta(index, {
                tool_calls: toolCalls.map((call, k) => ({ index: k, ...call })),
              });
            await delta(index, {}, finishReason(text, ch, toolCalls.length));
          }
          if (req.stream_options?.include_usage) await chunk([], { usage: usage(choices) });
        } catch (e) {
          await writes;
          await stream.writeSSE({ data: JSON.stringify(internal(e).body) });
        }
        await stream.writeSSE({ data: "[DONE]" });
      });
    },
  );

  app.notFound((c) =>
    fail(
      openAIError(404, `Unknown request URL: ${c.req.method} ${new URL(c.req.url).pathname}`, "unknown_url"),
    ),
  );
  app.onError((e) => fail(internal(e)));
  return app;
}

/** OpenAI's refusal of a request over the context, with the numbers; nothing is truncated. */
export function overContext(promptTokens: number, asked: number | undefined, context: number): OpenAIError {
  const message =
    asked === undefined
      ? `This model's maximum context length is ${context} tokens. However, your messages resulted in ${promptTokens} tokens, which leaves no room for a completion. Please reduce the length of the messages.`
      : `This model's maximum context length is ${context} tokens. However, you requested ${promptTokens + asked} tokens (${promptTokens} in the messages, ${asked} in the completion). Please reduce the length of the messages or completion.`;
  return openAIError(400, message, "context_length_exceeded", "messages");
}

function internal(e: unknown): OpenAIError {
  return openAIError(
    500,
    `generation failed: ${e instanceof Error ? e.message : String(e)}`,
    "internal_error",
  );
}

function modelCard(id: string, created: number) {
  return { id, object: "model", created, owned_by: "edgegym" };
}

function jsonHeaders(status: number): ResponseInit {
  return { status, headers: { "content-type": "application/json" } };
}
