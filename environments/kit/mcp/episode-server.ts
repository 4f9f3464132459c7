import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { EdgegymError } from "../../../shared/errors.js";
import type { Action, StepResult } from "../../../shared/protocol.js";
import type { Environment } from "../define-environment.js";
import type { EnvRuntime } from "../types.js";
import type { McpEpisode, McpSessionStore } from "./session-store.js";
import { argumentProblem, resolveTool } from "./tools.js";

/** Everything one request's MCP server works with. */
export type EpisodeServerContext = {
  env: Environment;
  tools: Tool[];
  finalAnswerTool: string | undefined;
  store: McpSessionStore;
  /** The episode's key in the store. */
  storeKey: string;
  episode: McpEpisode;
  runtime: EnvRuntime;
  now: () => number;
};

const RESOURCES = [
  { uri: "edgegym://task", name: "task", description: "the user message: this episode's task" },
  { uri: "edgegym://system", name: "system", description: "the environment's system prompt" },
] as const;

/**
 * An MCP server bound to one session's episode, built per HTTP request (the episode lives in the
 * store, not in this object): tools/list, tools/call as one step, and the task as prompt and resources.
 */
export function episodeServer(ctx: EpisodeServerContext): Server {
  const { env, episode } = ctx;
  const server = new Server(
    { name: `edgegym/${env.name}`, version: env.version },
    {
      capabilities: { tools: {}, prompts: {}, resources: {} },
      instructions: instructions(ctx),
      // Ajv compiles schemas with `new Function`, which workerd forbids.
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: ctx.tools }));
  server.setRequestHandler(CallToolRequestSchema, (req) =>
    callTool(ctx, req.params.name, req.params.arguments),
  );
  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: [{ name: "task", description: "this episode's task, as the user message to answer" }],
  }));
  server.setRequestHandler(GetPromptRequestSchema, (req) => {
    if (req.params.name !== "task")
      throw new RpcError(
        ErrorCode.InvalidParams,
        `unknown prompt "${req.params.name}"; the one prompt is "task"`,
      );
    return {
      description: `${env.name} ${episode.task.split} task ${episode.task.index}`,
      messages: [{ role: "user", content: { type: "text", text: episode.user } }],
    };
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: RESOURCES.map((r) => ({ ...r, mimeType: "text/plain" })),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (req) => {
    const r = RESOURCES.find((x) => x.uri === req.params.uri);
    if (!r)
      throw new RpcError(
        ErrorCode.InvalidParams,
        `unknown resource ${req.params.uri}; there are ${RESOURCES.map((x) => x.uri).join(", ")}`,
      );
    const text = r.name === "task" ? episode.user : episode.system;
    return { contents: [{ uri: r.uri, mimeType: "text/plain", text }] };
  });
  return server;
}

/** The initialize result's instructions: the task first, so a client that reads only those has it. */
function instructions(ctx: EpisodeServerContext): string {
  const final = ctx.finalAnswerTool
    ? `Give the final answer by calling ${ctx.finalAnswerTool}; it ends the episode and returns the reward and a signed receipt.`
    : "The episode ends when a tool says so; that result holds the reward and a signed receipt.";
  return [
    `Task: ${ctx.episode.user}`,
    `Call the tools directly: each tools/call is one step of the episode (at most ${ctx.env.limits.maxSteps}). ${final}`,
    `The environment's own system prompt (written for text tool calls) is the resource edgegym://system.`,
  ].join("\n\n");
}

async function callTool(
  ctx: EpisodeServerContext,
  name: string,
  args: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  const { env, episode } = ctx;
  if (episode.done) {
    throw new RpcError(
      ErrorCode.InvalidRequest,
      `this episode is finished (reward ${episode.reward ?? 0}); start a new MCP session for another`,
    );
  }
  let action: Action;
  if (name === ctx.finalAnswerTool) {
    const answer = (args as { answer?: unknown } | undefined)?.answer;
    if (typeof answer !== "string") return toolError(`${name} takes {"answer": "<text>"}`);
    // Text with tool-call blocks would be read as tool calls, not as the final answer.
    if (answer.includes("<tool_call>")) return toolError("the answer may not contain <tool_call> blocks");
    action = { content: answer };
  } else {
    const tool = resolveTool(env, name);
    if (!tool) {
      const names = ctx.tools.map((t) => t.name).join(", ");
      throw new RpcError(ErrorCode.InvalidParams, `unknown tool "${name}"; this environment has ${names}`);
    }
    // Checked before stepping: a malformed call costs no step, as a schema error costs an MCP client nothing.
    const problem = argumentProblem(env, tool, args ?? {});
    if (problem) return toolError(problem);
    action = { tool_calls: [{ id: "call_0", type: "function", function: { name, arguments: args ?? {} } }] };
  }

  let result: StepResult;
  try {
    result = await env.step({ session: episode.token, action }, ctx.runtime, ctx.now());
  } catch (e) {
    throw mcpError(e);
  }
  const steps = episode.step + 1;
  const ret = episode.return + result.reward;
  const next: McpEpisode = {
    ...episode,
    token: result.session,
    step: steps,
    done: result.done,
    return: ret,
    expiresAt: ctx.now() + env.limits.sessionTtlSeconds * 1000,
    ...(result.done ? { reward: result.reward } : {}),
    ...(result.receipt ? { receipt: result.receipt } : {}),
  };
  if (!(await ctx.store.update(ctx.storeKey, episode.step, next, ctx.now()))) {
    throw new RpcError(
      ErrorCode.InvalidRequest,
      "another call on this session advanced the episode first; calls on one session must wait for each other",
    );
  }

  const text = toolText(result);
  const outcome = {
    reward: result.reward,
    return: ret,
    steps,
    done: result.done,
    truncated: result.truncated,
    episodeId: episode.episodeId,
    ...(result.info.success === undefined ? {} : { success: result.info.success }),
    ...(result.receipt ? { receipt: result.receipt } : {}),
  };
  const lines = [text];
  if (result.done) {
    const why = result.truncated ? "the step limit was reached" : "the episode is over";
    lines.push(`${why}: reward ${result.reward}, return ${ret} over ${steps} steps`);
    if (result.receipt) lines.push(`receipt: ${result.receipt}`);
  }
  return {
    content: [{ type: "text", text: lines.filter((l) => l !== "").join("\n\n") }],
    structuredContent: outcome,
    ...(text.startsWith("Error:") ? { isError: true } : {}),
  };
}

/** The tool's response text: the tool message answering `call_0` (the whole context when replaced). */
export function toolText(result: StepResult): string {
  const messages = result.observation.messages;
  const reply = messages.findLast((m) => m.role === "tool" && m.tool_call_id === "call_0");
  if (reply?.role === "tool") return reply.content;
  const last = messages.at(-1);
  return typeof last?.content === "string" ? last.content : "";
}

export function toolError(text: string): CallToolResult {
  return { content: [{ type: "text", text: `Error: ${text}` }], isError: true };
}

/** edgegym problems as MCP errors: the code stays in the message and `data`, the detail is kept. */
export function mcpError(e: unknown): RpcError {
  if (!(e instanceof EdgegymError)) {
    console.error("edgegym: MCP step failed", e);
    return new RpcError(ErrorCode.InternalError, "internal error while stepping the episode");
  }
  const code =
    e.code === "action_too_large"
      ? ErrorCode.InvalidParams
      : e.code === "step_timeout" || e.code === "internal" || e.code === "not_configured"
        ? ErrorCode.InternalError
        : ErrorCode.InvalidRequest;
  return new RpcError(code, `${e.code}: ${e.message}`, { code: e.code });
}

/**
 * A JSON-RPC error the SDK passes on as it is (its `code`, `message` and `data`). The SDK's own
 * McpError prefixes "MCP error <code>:" to its message, and the client prefixes it again.
 */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}
