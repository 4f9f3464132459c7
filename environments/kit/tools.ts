import { z } from "zod";
import type { ToolSpec } from "../../shared/protocol.js";
import type { ParsedCall, ToolResponse } from "../../shared/tool-calls.js";
import type { EnvironmentDefinition, ToolContext } from "./types.js";

/** The manifest's view of the tools: JSON Schema generated from each zod parameter schema. */
export function toolSpecs(def: EnvironmentDefinition<unknown, unknown, unknown>): ToolSpec[] {
  return Object.entries(def.tools).map(([name, tool]) => {
    const { $schema: _drop, ...parameters } = z.toJSONSchema(tool.parameters, { io: "input" }) as Record<
      string,
      unknown
    >;
    return { type: "function", function: { name, description: tool.description, parameters } };
  });
}

export type CallOutcome<State> = {
  response: ToolResponse;
  invalid: boolean;
  state?: State;
  rewards: Record<string, number>;
  done: boolean;
  /** A tool's verdict when it ended the episode. */
  success?: boolean;
  info?: Record<string, unknown>;
};

/**
 * Runs one parsed call. Everything that can go wrong with a call — unparseable, unknown tool, bad
 * arguments, a tool that throws — comes back as a tool message, because the model learns from it.
 */
export async function runCall<Task, State>(
  def: EnvironmentDefinition<Task, State, unknown>,
  call: ParsedCall,
  ctx: ToolContext<Task, State>,
): Promise<CallOutcome<State>> {
  if (!call.ok) return fail(call.id, call.name ?? "unknown", call.error);
  const name = ownValue(def.toolAliases, call.name) ?? call.name;
  const tool = ownValue(def.tools, name);
  if (!tool) {
    return fail(
      call.id,
      call.name,
      `unknown tool "${call.name}"; available: ${Object.keys(def.tools).join(", ")}`,
    );
  }
  const args = tool.parameters.safeParse(call.arguments);
  if (!args.success) {
    const why = args.error.issues.map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`).join("; ");
    return fail(call.id, name, `invalid arguments for ${name}: ${why}`);
  }
  let out: Awaited<ReturnType<typeof tool.run>>;
  try {
    out = await tool.run(args.data, ctx);
  } catch (e) {
    return {
      response: {
        id: call.id,
        name,
        content: `Error: ${name} failed: ${e instanceof Error ? e.message : String(e)}`,
      },
      invalid: false,
      rewards: {},
      done: false,
    };
  }
  if (typeof out === "string")
    return { response: { id: call.id, name, content: out }, invalid: false, rewards: {}, done: false };
  return {
    response: { id: call.id, name, content: out.content },
    invalid: false,
    ...(out.state === undefined ? {} : { state: out.state }),
    rewards: out.rewards ?? {},
    done: out.done ?? false,
    ...(out.success === undefined ? {} : { success: out.success }),
    ...(out.info === undefined ? {} : { info: out.info }),
  };
}

/**
 * `record[key]` only when `key` is the record's own property: a model-chosen name such as
 * `constructor` or `__proto__` must not reach Object.prototype.
 */
export function ownValue<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** An invalid call's outcome: the error as the tool's response. */
function fail<State>(id: string, name: string, content: string): CallOutcome<State> {
  return { response: { id, name, content: `Error: ${content}` }, invalid: true, rewards: {}, done: false };
}
