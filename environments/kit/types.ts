import type { z } from "zod";
import type { Action, ChatMessage, Limits, TaskRef } from "../../shared/protocol.js";

/** What a deployment hands its environments: platform bindings (secrets, D1) and optional services. */
export type EnvRuntime = {
  /** Worker bindings on workerd, `process.env`-like values on Node. */
  bindings: Readonly<Record<string, unknown>>;
};

/** What every author callback sees about the episode it runs in. */
export type EpisodeContext<Task, State> = {
  task: Task;
  ref: TaskRef;
  state: State;
  /** Steps taken so far (0 before the first action). */
  step: number;
  /** Episode seed: any randomness must derive from it and `step`, so that forks replay exactly. */
  seed: number;
  runtime: EnvRuntime;
};

export type ToolContext<Task, State> = EpisodeContext<Task, State> & {
  /** Aborted when the step deadline passes; long-running tools should stop. */
  signal: AbortSignal;
};

/** What a tool returns: plain text, or text plus a state change, process rewards or the episode's end. */
export type ToolOutcome<State> =
  | string
  | {
      content: string;
      /** The call failed; the text says why (the model sees it either way). */
      error?: boolean;
      state?: State;
      /** Named reward parts for this call, summed into the step reward. */
      rewards?: Record<string, number>;
      /** Ends the episode (e.g. WebShop's `buy now`). */
      done?: boolean;
      /** With `done`: whether the task was solved. Default: the kit's rule (see `Score.success`). */
      success?: boolean;
      info?: Record<string, unknown>;
    };

export type ToolDefinition<Task, State, Schema extends z.ZodType = z.ZodType> = {
  description: string;
  /** Arguments as a zod object; the manifest carries its JSON Schema, calls are validated against it. */
  parameters: Schema;
  run(args: z.infer<Schema>, ctx: ToolContext<Task, State>): ToolOutcome<State> | Promise<ToolOutcome<State>>;
};

export type TaskSource<Task> = {
  /** Identity of the task data (generator version, dataset hash): part of the content hash. */
  id: string | ((runtime: EnvRuntime) => string | Promise<string>);
  splits: readonly string[] | ((runtime: EnvRuntime) => readonly string[] | Promise<readonly string[]>);
  /** Splits the expert refuses to act on, so evaluations can't be gamed. Default: `["test"]`. */
  heldOut?: readonly string[];
  count(split: string, runtime: EnvRuntime): number | Promise<number>;
  get(split: string, index: number, runtime: EnvRuntime): Task | Promise<Task>;
};

/** The result of scoring a final answer. */
export type Score = {
  reward: number;
  components: Record<string, number>;
  /**
   * Whether the task was solved: the final step's `info.success` and the receipt's `success`.
   * Default: the `outcome` component is positive, or, without one, the reward is.
   */
  success?: boolean;
  info?: Record<string, unknown>;
};

export type EnvironmentDefinition<Task, State, Config> = {
  name: string;
  version: string;
  /**
   * Earlier versions whose tasks and first observations this version keeps (it changed only later
   * steps), so that their runs' task-by-task records can still be grouped by task here.
   */
  sameTasksAs?: readonly string[];
  description: string;
  tools: Record<string, ToolDefinition<Task, State>>;
  /** Other names a tool answers to, e.g. `code_interpreter` for `run_javascript`. */
  toolAliases?: Record<string, string>;
  /** `sequential` when tools change state (a browser), so calls in one action apply in order. */
  toolConcurrency?: "parallel" | "sequential";
  tasks: TaskSource<Task>;
  /**
   * What tasks share beyond what they show the policy, so that their outcomes move together (a
   * WebShop goal's product: its results and item pages). Paired comparisons of policies cluster
   * their standard error by it; without it, by task. `unit` names the clusters, plural ("products").
   */
  taskCluster?: { unit: string; of(task: Task): string };
  limits?: Partial<Limits>;
  reward: { min: number; max: number };
  /** Behaviour settings (reward shaping, truncation sizes): part of the content hash. */
  config: Config;
  /** Reward added for each call that fails to parse, names an unknown tool or has bad arguments. */
  invalidCallPenalty?: number;
  initialState(task: Task, ctx: Omit<EpisodeContext<Task, State>, "state">): State | Promise<State>;
  /**
   * The state's shape. A token carrying any other state is refused as `invalid_session` before a
   * callback sees it: only a holder of the session key can seal one, but callbacks then never meet
   * a state `initialState` and the tools could not have made.
   */
  stateSchema?: z.ZodType<State>;
  /** The first messages: system prompt (tools, call format, answer format) and the user task. */
  firstObservation(ctx: EpisodeContext<Task, State>): ChatMessage[] | Promise<ChatMessage[]>;
  /**
   * Turns an action with no tool call into calls, for environments whose actions are plain text
   * commands (WebShop's `search[...]`). Returning `undefined` makes the text the final answer.
   */
  textAction?(
    content: string,
    ctx: EpisodeContext<Task, State>,
  ): { name: string; arguments: unknown }[] | undefined;
  /**
   * Agent-R1's flexible context management: after a tool step, return the whole new context (built
   * from the task and state, since the server keeps no history) and the observation is sent with
   * `mode: "replace"`. `undefined`, or leaving this out, appends the tool responses. `turn` is the
   * step's action as an assistant message (Hermes text, or OpenAI `tool_calls` with string
   * arguments) and how many of its calls were invalid, so that a hook can keep just the last turn,
   * `[system, turn.assistant, ...appended]`, and append instead when the model must see its mistake.
   */
  replaceContext?(
    appended: ChatMessage[],
    ctx: EpisodeContext<Task, State>,
    turn: { assistant: ChatMessage & { role: "assistant" }; invalidCalls: number },
  ): ChatMessage[] | undefined | Promise<ChatMessage[] | undefined>;
  /** Scores the final answer (the action's text outside tool calls) and ends the episode. */
  finish(answer: string, ctx: EpisodeContext<Task, State>): Score | Promise<Score>;
  /** The scripted expert's next action in this state. */
  expert(ctx: EpisodeContext<Task, State>): Action | Promise<Action>;
};
