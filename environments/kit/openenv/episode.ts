import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import {
  CallToolAction,
  ListToolsAction,
  OpenEnvAction,
  OpenEnvResetData,
  type OpenEnvResult,
  type OpenEnvState,
} from "../../../shared/openenv.js";
import type { Action, ChatMessage, StepResult, TaskRef } from "../../../shared/protocol.js";
import type { Environment } from "../define-environment.js";
import { argumentProblem, mcpTools, resolveTool } from "../mcp/tools.js";
import type { EnvRuntime } from "../types.js";
import { OpenEnvFault, sessionError, validationError } from "./errors.js";

/** What an episode is between steps, as the socket (or a stateless token's claims) knows it. */
export type EpisodeView = {
  token: string;
  episodeId: string;
  task: TaskRef;
  step: number;
  done: boolean;
  return: number;
};

/** The tools as OpenEnv lists them (`Tool`: name, description, input_schema), with `inputSchema` as MCP names it. */
export function openEnvTools(env: Environment): {
  tools: Tool[];
  finalAnswerTool: string | undefined;
} {
  return mcpTools(env);
}

/**
 * One OpenEnv episode over edgegym/v1: `reset` starts a session, `step` sends the current sealed
 * token with the action and keeps the next one. The token is all the state; whoever holds this
 * object (a socket's closure, or a stateless request) holds the episode, and nothing else does.
 */
export class OpenEnvEpisode {
  #view: EpisodeView | undefined;
  #tools: ReturnType<typeof openEnvTools> | undefined;

  constructor(
    private readonly env: Environment,
    private readonly runtime: EnvRuntime,
    private readonly now: () => number,
    view?: EpisodeView,
  ) {
    this.#view = view;
  }

  get view(): EpisodeView | undefined {
    return this.#view;
  }

  get tools(): ReturnType<typeof openEnvTools> {
    this.#tools ??= openEnvTools(this.env);
    return this.#tools;
  }

  async reset(data: unknown): Promise<OpenEnvResult> {
    const parsed = OpenEnvResetData.safeParse(data ?? {});
    if (!parsed.success) throw new OpenEnvFault(validationError("reset data", parsed.error));
    const { split, index, seed, episode_id } = parsed.data;
    const s = await this.env.startSession(
      { split, ...(index === undefined ? {} : { index }), ...(seed === undefined ? {} : { seed }) },
      this.runtime,
      this.now(),
    );
    this.#view = { token: s.session, episodeId: s.episodeId, task: s.task, step: 0, done: false, return: 0 };
    return this.result(s.observation.messages, "append", null, {
      truncated: false,
      ...(episode_id === undefined ? {} : { client_episode_id: episode_id }),
    });
  }

  /** A step: OpenEnv's `list_tools` and `call_tool` actions, or an edgegym action. */
  async step(data: unknown): Promise<OpenEnvResult> {
    const type = typeof data === "object" && data !== null ? (data as { type?: unknown }).type : undefined;
    if (type === "list_tools") {
      const parsed = ListToolsAction.safeParse(data);
      if (!parsed.success) throw new OpenEnvFault(validationError("list_tools action", parsed.error));
      return this.listTools();
    }
    if (type === "call_tool") {
      const parsed = CallToolAction.safeParse(data);
      if (!parsed.success) throw new OpenEnvFault(validationError("call_tool action", parsed.error));
      return this.callTool(parsed.data);
    }
    const parsed = OpenEnvAction.safeParse(data);
    if (!parsed.success) throw new OpenEnvFault(validationError("action", parsed.error));
    const { metadata: _metadata, ...action } = parsed.data;
    const r = await this.advance(action);
    return this.result(r.observation.messages, r.observation.mode, r.reward, this.stepMeta(r));
  }

  state(): OpenEnvState {
    const v = this.#view;
    return {
      episode_id: v?.episodeId ?? null,
      step_count: v?.step ?? 0,
      env: this.env.name,
      version: this.env.version,
      task: v?.task ?? null,
      done: v?.done ?? false,
      return: v?.return ?? 0,
    };
  }

  /** Sends one edgegym action with the current token; the view moves on only when the step succeeded. */
  async advance(action: Action): Promise<StepResult> {
    const v = this.#view;
    if (!v) throw new OpenEnvFault(sessionError("no episode: send reset first"));
    if (v.done) throw new OpenEnvFault(sessionError("this episode is finished; send reset for another"));
    const r = await this.env.step({ session: v.token, action }, this.runtime, this.now());
    this.#view = { ...v, token: r.session, step: v.step + 1, done: r.done, return: v.return + r.reward };
    return r;
  }

  listTools(): OpenEnvResult {
    const tools = this.tools.tools.map((t) => ({
      name: t.name,
      description: t.description ?? "",
      input_schema: t.inputSchema,
      inputSchema: t.inputSchema,
    }));
    const v = this.#view;
    return {
      observation: { tools, messages: [], mode: "append", metadata: this.meta({ truncated: false }) },
      reward: null,
      done: v?.done ?? false,
    };
  }

  /**
   * OpenEnv's `call_tool` as one edgegym step with one call; the final-answer tool (`submit_answer`)
   * is the action with no call. An unknown tool or bad arguments cost no step, as over MCP.
   */
  async callTool(call: CallToolAction): Promise<OpenEnvResult> {
    const { finalAnswerTool } = this.tools;
    let action: Action;
    if (call.tool_name === finalAnswerTool) {
      const answer = call.arguments.answer;
      if (typeof answer !== "string" || answer.includes("<tool_call>"))
        return this.toolError(call.tool_name, "invalid_args", `${call.tool_name} takes {"answer": "<text>"}`);
      action = { content: answer };
    } else {
      const tool = resolveTool(this.env, call.tool_name);
      if (!tool) {
        const names = this.tools.tools.map((t) => t.name).join(", ");
        return this.toolError(
          call.tool_name,
          "tool_not_found",
          `unknown tool "${call.tool_name}"; tools: ${names}`,
        );
      }
      const why = argumentProblem(this.env, tool, call.arguments);
      if (why) return this.toolError(call.tool_name, "invalid_args", why);
      action = {
        tool_calls: [
          { id: "call_0", type: "function", function: { name: call.tool_name, arguments: call.arguments } },
        ],
      };
    }
    const r = await this.advance(action);
    const text = toolText(r.observation.messages, r);
    const result = { content: [{ type: "text", text }], isError: false, data: text };
    const observation = {
      tool_name: call.tool_name,
      result,
      error: null,
      messages: r.observation.messages,
      mode: r.observation.mode,
      metadata: this.meta(this.stepMeta(r)),
    };
    return { observation, reward: r.reward, done: r.done };
  }

  private toolError(toolName: string, errorType: string, message: string): OpenEnvResult {
    return {
      observation: {
        tool_name: toolName,
        result: null,
        error: { error_type: errorType, message },
        messages: [],
        mode: "append",
        metadata: this.meta({ truncated: false }),
      },
      reward: 0,
      done: this.#view?.done ?? false,
    };
  }

  private stepMeta(r: StepResult): Record<string, unknown> {
    return { truncated: r.truncated, info: r.info, ...(r.receipt ? { receipt: r.receipt } : {}) };
  }

  private meta(extra: Record<string, unknown>): Record<string, unknown> & { truncated: boolean } {
    const v = this.#view;
    const episode = v ? { session: v.token, episode_id: v.episodeId, task: v.task, step: v.step } : {};
    return { ...episode, truncated: false, ...extra };
  }

  private result(
    messages: ChatMessage[],
    mode: "append" | "replace",
    reward: number | null,
    extra: Record<string, unknown>,
  ): OpenEnvResult {
    const observation = { messages, mode, metadata: this.meta(extra) } as OpenEnvResult["observation"];
    return { observation, reward, done: this.#view?.done ?? false };
  }
}

/** A call's result text: the tool messages, or, for the step that ended the episode, its outcome. */
function toolText(messages: readonly ChatMessage[], r: StepResult): string {
  const tools = messages.filter((m) => m.role === "tool").map((m) => m.content);
  if (tools.length > 0) return tools.join("\n\n");
  return JSON.stringify({ reward: r.reward, done: r.done, truncated: r.truncated, success: r.info.success });
}
