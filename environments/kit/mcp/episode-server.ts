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
import type { StepResult } from "../../../shared/protocol.js";
import type { Environment } from "../define-environment.js";
import type { EnvRuntime } from "../types.js";
import { callAction, stepToolResult } from "./episode-calls.js";
import type { McpEpisode, McpSessionStore } from "./session-store.js";

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
  const call = callAction(env, ctx.tools, ctx.finalAnswerTool, name, args ?? {});
  if ("refused" in call) return call.refused;
  if ("unknown" in call) throw new RpcError(ErrorCode.InvalidParams, call.unknown);

  let result: StepResult;
  try {
    result = await env.step({ session: episode.token, action: call.action }, ctx.runtime, ctx.now());
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

  const outcome = {
    reward: result.reward,
    return: ret,
    steps,
    done: result.done,
    truncated: result.truncated,
    episodeId: episode.episodeId,
  };
  return stepToolResult(result, outcome, { ended: `, return ${ret} over ${steps} steps` });
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
