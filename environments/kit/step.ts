import { EdgegymError } from "../../shared/errors.js";
import { deeperThan, MAX_JSON_DEPTH } from "../../shared/json-depth.js";
import type { Action, ChatMessage, Limits, Observation, StepInfo } from "../../shared/protocol.js";
import { defaultSuccess } from "../../shared/success.js";
import {
  formatToolResponses,
  type ParsedCall,
  parseHermesCalls,
  parseOpenAICalls,
  stripToolCalls,
} from "../../shared/tool-calls.js";
import { type CallOutcome, runCall } from "./tools.js";
import type { EnvironmentDefinition, EpisodeContext } from "./types.js";

export type Transition<State> = {
  state: State;
  reward: number;
  done: boolean;
  observation: Observation;
  info: StepInfo;
};

/**
 * The size `maxActionChars` bounds: the content's characters plus each OpenAI call's name and
 * arguments (the string as sent, or an object's JSON), i.e. what the model wrote, and no wire
 * framing.
 */
export function actionChars(action: Action): number {
  let size = action.content?.length ?? 0;
  for (const [i, call] of (action.tool_calls ?? []).entries()) {
    const args = call.function.arguments;
    // The schema refuses this over HTTP; an in-process caller may not have parsed its action.
    if (typeof args !== "string" && deeperThan(args)) {
      const message = `arguments may nest at most ${MAX_JSON_DEPTH} levels`;
      throw new EdgegymError("invalid_request", message, {
        issues: [{ path: `action.tool_calls.${i}.function.arguments`, message }],
      });
    }
    size += call.function.name.length + (typeof args === "string" ? args : JSON.stringify(args)).length;
  }
  return size;
}

/**
 * One step of the episode MDP: the action's tool calls run and their results become the observation;
 * an action with no tool call is the final answer and is scored. Bounded by `stepTimeoutMs`.
 */
export async function transition<Task, State>(
  def: EnvironmentDefinition<Task, State, unknown>,
  ctx: EpisodeContext<Task, State>,
  action: Action,
  limits: Limits,
): Promise<Transition<State>> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new EdgegymError("step_timeout", `the step took longer than ${limits.stepTimeoutMs} ms`));
    }, limits.stepTimeoutMs);
  });
  try {
    return await Promise.race([run(def, ctx, action, controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function run<Task, State>(
  def: EnvironmentDefinition<Task, State, unknown>,
  ctx: EpisodeContext<Task, State>,
  action: Action,
  signal: AbortSignal,
): Promise<Transition<State>> {
  const content = action.content ?? "";
  const style = action.tool_calls ? "openai" : "hermes";
  let calls: ParsedCall[] = action.tool_calls
    ? parseOpenAICalls(action.tool_calls)
    : parseHermesCalls(content);
  if (calls.length === 0 && def.textAction) {
    const derived = def.textAction(content, ctx) ?? [];
    calls = derived.map((c, i) => ({ ok: true, id: `call_${i}`, name: c.name, arguments: c.arguments }));
  }
  if (calls.length === 0) {
    const score = await def.finish(stripToolCalls(content), ctx);
    const success = score.success ?? defaultSuccess(score.reward, score.components);
    return {
      state: ctx.state,
      reward: score.reward,
      done: true,
      observation: { messages: [], mode: "append" },
      info: { ...score.info, reward_components: score.components, tool_calls: 0, invalid_calls: 0, success },
    };
  }

  const outcomes: CallOutcome<State>[] = [];
  let state = ctx.state;
  if (def.toolConcurrency === "sequential") {
    for (const call of calls) {
      const out = await runCall(def, call, { ...ctx, state, signal });
      if (out.state !== undefined) state = out.state;
      outcomes.push(out);
      if (out.done) break;
    }
  } else {
    outcomes.push(...(await Promise.all(calls.map((call) => runCall(def, call, { ...ctx, signal })))));
    for (const out of outcomes) if (out.state !== undefined) state = out.state;
  }

  const components: Record<string, number> = {};
  let invalid = 0;
  let info: Record<string, unknown> = {};
  for (const out of outcomes) {
    for (const [k, v] of Object.entries(out.rewards)) components[k] = (components[k] ?? 0) + v;
    if (out.invalid) invalid++;
    if (out.info) info = { ...info, ...out.info };
  }
  if (invalid > 0 && def.invalidCallPenalty)
    components.format = (components.format ?? 0) + invalid * def.invalidCallPenalty;
  const reward = Object.values(components).reduce((a, b) => a + b, 0);
  const appended = formatToolResponses(
    outcomes.map((o) => o.response),
    style,
  );
  const replaced = await def.replaceContext?.(
    appended,
    { ...ctx, state, step: ctx.step + 1 },
    { assistant: assistantTurn(content, style, calls), invalidCalls: invalid },
  );
  const ender = outcomes.find((o) => o.done);
  // A tool that ends the episode (WebShop's `buy now`) gives its verdict, or the kit's default does.
  const verdict = ender ? { success: ender.success ?? defaultSuccess(reward, components) } : {};
  return {
    state,
    reward,
    done: ender !== undefined,
    observation: replaced ? { messages: replaced, mode: "replace" } : { messages: appended, mode: "append" },
    info: {
      ...info,
      reward_components: components,
      tool_calls: calls.length,
      invalid_calls: invalid,
      ...verdict,
    },
  };
}

/** The action as the assistant message a chat context holds: Hermes text, or OpenAI tool_calls. */
function assistantTurn(
  content: string,
  style: "hermes" | "openai",
  calls: readonly ParsedCall[],
): ChatMessage & { role: "assistant" } {
  if (style === "hermes") return { role: "assistant", content };
  return {
    role: "assistant",
    content: content === "" ? null : content,
    tool_calls: calls.flatMap((c) =>
      c.ok
        ? [
            {
              id: c.id,
              type: "function" as const,
              function: { name: c.name, arguments: JSON.stringify(c.arguments) },
            },
          ]
        : [],
    ),
  };
}
