import {
  type CallToolResult,
  createMcpHandler as createModernHandler,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type Tool,
} from "@modelcontextprotocol/server";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";
import { EdgegymError } from "../../../shared/errors.js";
import { type Action, SessionRequest } from "../../../shared/protocol.js";
import type { Environment } from "../define-environment.js";
import type { EnvRuntime } from "../types.js";
import { mcpError, toolError, toolText } from "./episode-server.js";
import { argumentProblem, mcpTools, resolveTool } from "./tools.js";

/** The argument every episode tool takes in the stateless revision: the handle the last result gave. */
export const EPISODE_ARG = "episode_token";
/** The tool that starts an episode in the stateless revision. */
export const START_TOOL = "start_episode";

const START_SCHEMA: Tool["inputSchema"] = {
  type: "object",
  properties: {
    split: { type: "string", description: "the task split (default: the env's first)" },
    index: { type: "integer", minimum: 0, description: "the task's index in the split" },
    seed: { type: "integer", description: "a seed for sampled tasks" },
  },
  additionalProperties: false,
};

/**
 * MCP's 2026-07-28 revision, which has no session: every request stands alone. An edgegym episode
 * needs none either, since its whole state is the sealed token; here that token is a tool argument.
 * `start_episode` returns the first `episode_token`, every tool takes one and returns the next, and
 * an older token replays the episode from that state (a fork). Nothing is kept on the server, so
 * any instance answers any call and no per-client bound applies.
 */
export function statelessMcpHandler(
  env: Environment,
  now: () => number,
): (request: Request, body: unknown, runtime: EnvRuntime) => Promise<Response> {
  let listed: { tools: Tool[]; finalAnswerTool: string | undefined } | undefined;
  return async (request, body, runtime) => {
    listed ??= statelessTools(env);
    const { tools, finalAnswerTool } = listed;
    // One handler per request: the server it builds needs this request's bindings.
    // No tool sends a notification before its result, so each answer is one JSON body.
    const handler = createModernHandler(() => statelessServer(env, tools, finalAnswerTool, runtime, now), {
      legacy: "reject",
    });
    try {
      return await handler.fetch(request, { parsedBody: body });
    } finally {
      await handler.close();
    }
  };
}

/** The legacy tools with `episode_token` required on each, and `start_episode` first. */
function statelessTools(env: Environment): { tools: Tool[]; finalAnswerTool: string | undefined } {
  const legacy = mcpTools(env);
  const tools: Tool[] = legacy.tools.map(({ outputSchema: _, ...t }) => {
    const schema = t.inputSchema as { properties?: Record<string, unknown>; required?: string[] };
    return {
      ...t,
      inputSchema: {
        ...t.inputSchema,
        properties: {
          ...schema.properties,
          [EPISODE_ARG]: { type: "string", description: `the ${EPISODE_ARG} the previous result returned` },
        },
        required: [...(schema.required ?? []), EPISODE_ARG],
      },
    };
  });
  tools.unshift({
    name: START_TOOL,
    description: `Start an episode of ${env.name}. The result holds the task and the first ${EPISODE_ARG}; pass it to the next tool call, and each result gives the next one.`,
    inputSchema: START_SCHEMA,
  });
  return { tools, finalAnswerTool: legacy.finalAnswerTool };
}

function statelessServer(
  env: Environment,
  tools: Tool[],
  finalAnswerTool: string | undefined,
  runtime: EnvRuntime,
  now: () => number,
): Server {
  const server = new Server(
    { name: `edgegym/${env.name}`, version: env.version },
    {
      capabilities: { tools: {} },
      instructions: [
        `Each episode of ${env.name} starts with ${START_TOOL}, whose result gives the task and an ${EPISODE_ARG}.`,
        `Every other tool call is one step (at most ${env.limits.maxSteps}); pass the ${EPISODE_ARG} the previous result gave. ${finalAnswerTool ? `${finalAnswerTool} gives the final answer and ends the episode.` : ""}`,
        "The last result holds the reward and a receipt signed with the manifest's publicKey.",
      ].join("\n\n"),
      // Ajv compiles schemas with `new Function`, which workerd forbids.
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    },
  );
  server.setRequestHandler("tools/list", () => ({ tools }));
  server.setRequestHandler("tools/call", async (req) => {
    const { name, arguments: args = {} } = req.params;
    if (name === START_TOOL) return start(env, args, runtime, now());
    return step(env, tools, finalAnswerTool, name, args, runtime, now());
  });
  return server;
}

async function start(
  env: Environment,
  args: Record<string, unknown>,
  runtime: EnvRuntime,
  now: number,
): Promise<CallToolResult> {
  const parsed = SessionRequest.safeParse(args);
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.join(".") || "task"}: ${i.message}`).join("; ");
    return toolError(`invalid task choice: ${why}`);
  }
  let s: Awaited<ReturnType<Environment["startSession"]>>;
  try {
    s = await env.startSession(parsed.data, runtime, now);
  } catch (e) {
    // A task that doesn't exist is the caller's to correct, as bad arguments are.
    if (e instanceof EdgegymError && e.status < 500) return toolError(`${e.code}: ${e.message}`);
    throw rethrow(e);
  }
  const text = (role: string) =>
    s.observation.messages
      .filter((m) => m.role === role && typeof m.content === "string")
      .map((m) => m.content)
      .join("\n\n");
  return {
    content: [{ type: "text", text: `Task: ${text("user")}\n\n${EPISODE_ARG}: ${s.session}` }],
    structuredContent: {
      [EPISODE_ARG]: s.session,
      episodeId: s.episodeId,
      task: s.task,
      system: text("system"),
      user: text("user"),
    },
  };
}

async function step(
  env: Environment,
  tools: Tool[],
  finalAnswerTool: string | undefined,
  name: string,
  args: Record<string, unknown>,
  runtime: EnvRuntime,
  now: number,
): Promise<CallToolResult> {
  const { [EPISODE_ARG]: token, ...rest } = args;
  if (typeof token !== "string")
    return toolError(`${name} takes "${EPISODE_ARG}": the token the last result gave`);
  let action: Action;
  if (name === finalAnswerTool) {
    const answer = rest.answer;
    if (typeof answer !== "string") return toolError(`${name} takes {"answer": "<text>"}`);
    // Text with tool-call blocks would be read as tool calls, not as the final answer.
    if (answer.includes("<tool_call>")) return toolError("the answer may not contain <tool_call> blocks");
    action = { content: answer };
  } else {
    const tool = resolveTool(env, name);
    if (!tool) {
      const names = tools.map((t) => t.name).join(", ");
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `unknown tool "${name}"; this environment has ${names}`,
      );
    }
    // Checked before stepping: a malformed call costs no step.
    const problem = argumentProblem(env, tool, rest);
    if (problem) return toolError(problem);
    action = { tool_calls: [{ id: "call_0", type: "function", function: { name, arguments: rest } }] };
  }
  const result = await env.step({ session: token, action }, runtime, now).catch((e: unknown) => {
    throw rethrow(e);
  });
  const text = toolText(result);
  const lines = [text];
  if (result.done) {
    const why = result.truncated ? "the step limit was reached" : "the episode is over";
    lines.push(`${why}: reward ${result.reward}`);
    if (result.receipt) lines.push(`receipt: ${result.receipt}`);
  } else {
    lines.push(`${EPISODE_ARG}: ${result.session}`);
  }
  return {
    content: [{ type: "text", text: lines.filter((l) => l !== "").join("\n\n") }],
    structuredContent: {
      reward: result.reward,
      done: result.done,
      truncated: result.truncated,
      ...(result.done ? {} : { [EPISODE_ARG]: result.session }),
      ...(result.info.success === undefined ? {} : { success: result.info.success }),
      ...(result.receipt ? { receipt: result.receipt } : {}),
    },
    ...(text.startsWith("Error:") ? { isError: true } : {}),
  };
}

/** edgegym problems as the SDK's protocol errors, with the same codes the sessionful server uses. */
function rethrow(e: unknown): ProtocolError {
  const m = mcpError(e);
  return new ProtocolError(m.code, m.message, m.data);
}
