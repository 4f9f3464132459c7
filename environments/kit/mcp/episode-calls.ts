import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { EdgegymError } from "../../../shared/errors.js";
import {
  type Action,
  SessionRequest,
  type SessionResponse,
  type StepResult,
} from "../../../shared/protocol.js";
import { err, ok, type Result } from "../../../shared/result.js";
import type { Environment } from "../define-environment.js";
import type { EnvRuntime } from "../types.js";
import { argumentProblem, resolveTool } from "./tools.js";

/**
 * What both MCP revisions do alike with an episode, the sessionful one (episode-server.ts) and the
 * stateless one (stateless-server.ts): start the task a client chose, read a tools/call as the step's
 * action, and answer with the step's result.
 */

/** A started episode with its first observation's system prompt and task (the user message). */
export type StartedTask = { start: SessionResponse; system: string; user: string };

/**
 * Starts the task `choice` names (`{ split?, index?, seed? }`). A choice the caller can correct (not
 * a task choice, no such split or index) is the error's one line; anything else is thrown.
 */
export async function startChosenTask(
  env: Environment,
  choice: unknown,
  runtime: EnvRuntime,
  now: number,
): Promise<Result<StartedTask>> {
  const parsed = SessionRequest.safeParse(choice);
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.join(".") || "task"}: ${i.message}`).join("; ");
    return err(`invalid task choice: ${why}`);
  }
  let start: SessionResponse;
  try {
    start = await env.startSession(parsed.data, runtime, now);
  } catch (e) {
    // A task that doesn't exist is the caller's to correct, as bad arguments are.
    if (e instanceof EdgegymError && e.status < 500) return err(`${e.code}: ${e.message}`);
    throw e;
  }
  const text = (role: string) =>
    start.observation.messages
      .filter((m) => m.role === role && typeof m.content === "string")
      .map((m) => m.content)
      .join("\n\n");
  return ok({ start, system: text("system"), user: text("user") });
}

/**
 * A tools/call as the step's action: the final-answer tool's answer as the action's content, any
 * other tool as one call. A malformed call is `refused` with a tool error, before stepping, so it
 * costs no step (as a schema error costs an MCP client nothing); a tool the env lacks is `unknown`,
 * the message each revision throws as its own protocol error.
 */
export function callAction(
  env: Environment,
  tools: readonly { name: string }[],
  finalAnswerTool: string | undefined,
  name: string,
  args: Record<string, unknown>,
): { action: Action } | { refused: CallToolResult } | { unknown: string } {
  if (name === finalAnswerTool) {
    const answer = args.answer;
    if (typeof answer !== "string") return { refused: toolError(`${name} takes {"answer": "<text>"}`) };
    // Text with tool-call blocks would be read as tool calls, not as the final answer.
    if (answer.includes("<tool_call>"))
      return { refused: toolError("the answer may not contain <tool_call> blocks") };
    return { action: { content: answer } };
  }
  const tool = resolveTool(env, name);
  if (!tool) {
    const names = tools.map((t) => t.name).join(", ");
    return { unknown: `unknown tool "${name}"; this environment has ${names}` };
  }
  const problem = argumentProblem(env, tool, args);
  if (problem) return { refused: toolError(problem) };
  return {
    action: { tool_calls: [{ id: "call_0", type: "function", function: { name, arguments: args } }] },
  };
}

/**
 * A step's result as the tool's: the tool's text, then, at the end, why the episode ended (`ended`
 * follows the reward) and its receipt, or else `next`. `structured` leads its structuredContent,
 * then the step's success and receipt where it has them.
 */
export function stepToolResult(
  result: StepResult,
  structured: Record<string, unknown>,
  lines: { ended?: string; next?: string },
): CallToolResult {
  const text = toolText(result);
  const out = [text];
  if (result.done) {
    const why = result.truncated ? "the step limit was reached" : "the episode is over";
    out.push(`${why}: reward ${result.reward}${lines.ended ?? ""}`);
    if (result.receipt) out.push(`receipt: ${result.receipt}`);
  } else if (lines.next) {
    out.push(lines.next);
  }
  return {
    content: [{ type: "text", text: out.filter((l) => l !== "").join("\n\n") }],
    structuredContent: {
      ...structured,
      ...(result.info.success === undefined ? {} : { success: result.info.success }),
      ...(result.receipt ? { receipt: result.receipt } : {}),
    },
    ...(text.startsWith("Error:") ? { isError: true } : {}),
  };
}

/** The tool's response text: the tool message answering `call_0` (the whole context when replaced). */
function toolText(result: StepResult): string {
  const messages = result.observation.messages;
  const reply = messages.findLast((m) => m.role === "tool" && m.tool_call_id === "call_0");
  if (reply?.role === "tool") return reply.content;
  const last = messages.at(-1);
  return typeof last?.content === "string" ? last.content : "";
}

export function toolError(text: string): CallToolResult {
  return { content: [{ type: "text", text: `Error: ${text}` }], isError: true };
}
