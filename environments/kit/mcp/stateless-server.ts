import {
  type CallToolResult,
  createMcpHandler as createModernHandler,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type Tool,
} from "@modelcontextprotocol/server";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";
import type { Environment } from "../define-environment.js";
import type { EnvRuntime } from "../types.js";
import { callAction, startChosenTask, stepToolResult, toolError } from "./episode-calls.js";
import { mcpError } from "./episode-server.js";
import { mcpTools } from "./tools.js";

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
  const started = await startChosenTask(env, args, runtime, now).catch((e: unknown) => {
    throw rethrow(e);
  });
  if (!started.ok) return toolError(started.error);
  const { start: s, system, user } = started.value;
  return {
    content: [{ type: "text", text: `Task: ${user}\n\n${EPISODE_ARG}: ${s.session}` }],
    structuredContent: { [EPISODE_ARG]: s.session, episodeId: s.episodeId, task: s.task, system, user },
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
  const call = callAction(env, tools, finalAnswerTool, name, rest);
  if ("refused" in call) return call.refused;
  if ("unknown" in call) throw new ProtocolError(ProtocolErrorCode.InvalidParams, call.unknown);
  const result = await env.step({ session: token, action: call.action }, runtime, now).catch((e: unknown) => {
    throw rethrow(e);
  });
  const structured = {
    reward: result.reward,
    done: result.done,
    truncated: result.truncated,
    ...(result.done ? {} : { [EPISODE_ARG]: result.session }),
  };
  return stepToolResult(result, structured, { next: `${EPISODE_ARG}: ${result.session}` });
}

/** edgegym problems as the SDK's protocol errors, with the same codes the sessionful server uses. */
function rethrow(e: unknown): ProtocolError {
  const m = mcpError(e);
  return new ProtocolError(m.code, m.message, m.data);
}
