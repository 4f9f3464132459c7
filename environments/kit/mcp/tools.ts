import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Environment } from "../define-environment.js";
import { toolSpecs } from "../tools.js";

/** The final-answer tool every env gets over MCP unless it has a tool of that name itself. */
export const SUBMIT_ANSWER = "submit_answer";

/** What a finished episode's tool result carries as `structuredContent`. */
const EPISODE_OUTPUT: Tool["outputSchema"] = {
  type: "object",
  properties: {
    reward: { type: "number", description: "this step's reward" },
    return: { type: "number", description: "the sum of the episode's step rewards" },
    steps: { type: "integer" },
    done: { type: "boolean" },
    truncated: { type: "boolean" },
    episodeId: { type: "string" },
    receipt: { type: "string", description: "compact JWS signed with the manifest's publicKey" },
  },
  required: ["reward", "return", "steps", "done", "truncated", "episodeId"],
};

/**
 * The env's tools as MCP tools: the same JSON Schemas as the manifest's (generated from the tools'
 * zod schemas), plus `submit_answer`, whose call is the edgegym/v1 action with no tool call.
 */
export function mcpTools(env: Environment): { tools: Tool[]; finalAnswerTool: string | undefined } {
  const tools: Tool[] = toolSpecs(env.definition).map((t) => ({
    name: t.function.name,
    description: t.function.description,
    inputSchema: { type: "object", ...t.function.parameters },
  }));
  if (env.definition.tools[SUBMIT_ANSWER]) return { tools, finalAnswerTool: undefined };
  tools.push({
    name: SUBMIT_ANSWER,
    description:
      "Give the final answer, in the format the task asks for. Ends the episode; the result holds the reward and a signed receipt.",
    inputSchema: {
      type: "object",
      properties: { answer: { type: "string", description: "the final answer text" } },
      required: ["answer"],
      additionalProperties: false,
    },
    outputSchema: EPISODE_OUTPUT,
  });
  return { tools, finalAnswerTool: SUBMIT_ANSWER };
}

/** The canonical name of `name` (following the env's aliases), or undefined when it is no tool. */
export function resolveTool(env: Environment, name: string): string | undefined {
  const canonical = env.definition.toolAliases?.[name] ?? name;
  return Object.hasOwn(env.definition.tools, canonical) ? canonical : undefined;
}

/** Why `args` do not fit the tool's schema, or undefined when they do. */
export function argumentProblem(env: Environment, tool: string, args: unknown): string | undefined {
  const def = env.definition.tools[tool];
  if (!def) return `unknown tool "${tool}"`;
  const parsed = def.parameters.safeParse(args);
  if (parsed.success) return undefined;
  const why = parsed.error.issues.map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`).join("; ");
  return `invalid arguments for ${tool}: ${why}`;
}
