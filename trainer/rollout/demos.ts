import type { ToolSpec } from "../../shared/protocol.js";
import { parseHermesCalls } from "../../shared/tool-calls.js";
import type { EnvClient } from "../client/env-client.js";
import type { Tokenizer } from "../policy/types.js";
import { firstPrompt, nextPrompt } from "./prompt.js";
import type { StepRecord, Trajectory } from "./types.js";

export type DemoOptions = {
  split: string;
  tasks: readonly number[];
  maxSteps: number;
  /** Episodes in flight at once. */
  concurrency: number;
  renderTools: boolean;
};

/**
 * Expert demonstrations through the env's `/v1/expert`: the same step records as a rollout (prompt
 * ids built by the same {@link nextPrompt}), with the expert's action encoded as the response
 * and closed by end-of-turn, so SFT trains exactly the ids the policy will later sample.
 */
export async function collectDemos(
  client: EnvClient,
  tokenizer: Tokenizer,
  opts: DemoOptions,
  tools: readonly ToolSpec[] = [],
): Promise<Trajectory[]> {
  const promptTools = opts.renderTools ? tools : undefined;
  const out: Trajectory[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < opts.tasks.length; i = next++) {
      out.push(await demo(i, opts.tasks[i] as number));
    }
  };
  const demo = async (episode: number, index: number): Promise<Trajectory> => {
    const base = { episode, group: episode, task: { split: opts.split, index } };
    const start = await client.reset({ split: opts.split, index });
    if (!start.ok)
      return { ...base, steps: [], return: 0, success: false, truncated: false, failure: start.error };
    let session = start.value.session;
    let conv = firstPrompt(tokenizer, start.value.observation.messages, promptTools);
    const steps: StepRecord[] = [];
    for (let step = 0; step < opts.maxSteps; step++) {
      const expert = await client.expert(session);
      const action = expert.ok ? (expert.value.action.content ?? "") : "";
      const result = expert.ok ? await client.step(session, { content: action }) : expert;
      if (!result.ok)
        return { ...base, steps, return: 0, success: false, truncated: false, failure: result.error };
      const responseIds = [...tokenizer.encode(action), tokenizer.special.endOfTurn];
      const r = result.value;
      steps.push({
        episode,
        group: episode,
        step,
        promptIds: conv.promptIds,
        responseIds,
        responseLogprobs: [],
        action,
        toolCalls: parseHermesCalls(action).length,
        reward: r.reward,
        done: r.done,
        truncated: r.truncated,
        info: r.info,
        observation: r.done ? [] : r.observation.messages,
      });
      if (r.done) {
        const ret = steps.reduce((a, s) => a + s.reward, 0);
        const success = (r.info.reward_components.outcome ?? r.reward) > 0;
        return { ...base, steps, return: ret, success, truncated: r.truncated };
      }
      conv = nextPrompt(tokenizer, conv, responseIds, action, r.observation, promptTools);
      session = r.session;
    }
    return {
      ...base,
      steps,
      return: steps.reduce((a, s) => a + s.reward, 0),
      success: false,
      truncated: true,
    };
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency) }, worker));
  return out.sort((a, b) => a.episode - b.episode);
}
