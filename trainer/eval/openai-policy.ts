import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { Action, ChatMessage, Manifest } from "../../shared/protocol.js";
import { parseHermesCalls } from "../../shared/tool-calls.js";
import type { EnvClient } from "../client/env-client.js";
import { Episode, messageRules } from "../rollout/episode.js";
import type { StartSession, Trajectory } from "../rollout/types.js";
import { policyFailure } from "./policy-failure.js";
import { type ToolFormat, withoutHermesExamples } from "./tool-format.js";

export type RemoteEvalOptions = {
  split: string;
  tasks: readonly number[];
  maxSteps: number;
  /** Episodes in flight at once. */
  concurrency: number;
  temperature: number;
  maxTokens: number;
  /** How the model calls tools (see tool-format.ts). */
  toolFormat: ToolFormat;
  /** Deadline of one chat-completion attempt, for the failure's message. */
  timeoutMs: number;
  /** Session source (a hub evaluation's); defaults to the env's `/v1/sessions`. */
  start?: StartSession;
  /** Called as each episode ends (progress). */
  onEpisode?: (t: Trajectory) => void;
};

/**
 * The client for `--policy openai:<baseURL>`; the key comes from OPENAI_API_KEY when set. Every call
 * has a deadline, and the SDK retries connection errors, 408/409/429 and 5xx `retries` times.
 */
export function openAIClient(
  baseURL: string,
  opts: { timeoutMs: number; retries: number },
  apiKey = process.env.OPENAI_API_KEY ?? "not-needed",
): OpenAI {
  return new OpenAI({ baseURL, apiKey, maxRetries: opts.retries, timeout: opts.timeoutMs });
}

/**
 * Episodes driven by a remote OpenAI-compatible model (vLLM, llama.cpp, OpenAI). With the `openai`
 * tool format the manifest's tools are the request's `tools`, the model's `tool_calls` go to the env as
 * OpenAI-style actions and the env answers with `tool` messages; with `hermes` the model's text is the
 * action. A failed call ends its episode as an infrastructure failure saying what failed. The records
 * carry text only (no ids: this policy is not trained here).
 */
export async function runRemoteEpisodes(
  openai: OpenAI,
  model: string,
  client: EnvClient,
  manifest: Manifest,
  opts: RemoteEvalOptions,
): Promise<Trajectory[]> {
  const out: Trajectory[] = [];
  let next = 0;
  const openaiTools = opts.toolFormat === "openai";
  const rules = messageRules((m) => (openaiTools ? withoutHermesExamples(m) : [...m]));
  const episode = async (i: number): Promise<Trajectory> => {
    const task = { split: opts.split, index: opts.tasks[i] as number };
    const id = { episode: i, group: i, task };
    const start = await (opts.start ?? ((t: typeof task) => client.reset(t)))(task);
    if (!start.ok) return Episode.failed(id, start.error);
    const e = new Episode(id, start.value, rules);
    while (!e.ended && e.steps.length < opts.maxSteps) {
      const completion = await openai.chat.completions
        .create({
          model,
          messages: e.context as ChatCompletionMessageParam[],
          ...(openaiTools ? { tools: manifest.tools } : {}),
          temperature: opts.temperature,
          max_tokens: opts.maxTokens,
        })
        .catch((e: unknown) => ({ failed: policyFailure(e, openai.baseURL, opts.timeoutMs), error: e }));
      // A conversation grown past the model's context ends truncated, as in-process rollouts end it;
      // it is the episode's length, not the infrastructure, that failed.
      if ("failed" in completion && overContext(completion.error) && e.steps.length > 0) return e.finish();
      if ("failed" in completion) return e.finish(completion.failed);
      const reply = completion.choices[0]?.message;
      const calls = (reply?.tool_calls ?? []).flatMap((c) =>
        c.type === "function"
          ? [
              {
                id: c.id,
                type: "function" as const,
                function: { name: c.function.name, arguments: c.function.arguments },
              },
            ]
          : [],
      );
      const action: Action =
        calls.length > 0
          ? { content: reply?.content ?? null, tool_calls: calls }
          : { content: reply?.content ?? "" };
      const result = await client.step(e.session, action);
      if (!result.ok) return e.finish(result.error);
      const assistant: ChatMessage = {
        role: "assistant",
        content: reply?.content ?? null,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      };
      e.record(
        {
          promptIds: [],
          responseIds: [],
          responseLogprobs: [],
          action: JSON.stringify(action),
          toolCalls: openaiTools ? calls.length : parseHermesCalls(reply?.content ?? "").length,
          assistant,
        },
        result.value,
      );
    }
    return e.finish();
  };
  const worker = async () => {
    for (let i = next++; i < opts.tasks.length; i = next++) {
      const t = await episode(i);
      out.push(t);
      opts.onEpisode?.(t);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency) }, worker));
  return out.sort((a, b) => a.episode - b.episode);
}

/** OpenAI's (and vLLM's, and `edgegym serve`'s) refusal of a prompt plus max_tokens over the context. */
function overContext(e: unknown): boolean {
  return e instanceof OpenAI.BadRequestError && e.code === "context_length_exceeded";
}
