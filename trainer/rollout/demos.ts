import type { ToolSpec } from "../../shared/protocol.js";
import { parseHermesCalls } from "../../shared/tool-calls.js";
import type { EnvClient } from "../client/env-client.js";
import type { Tokenizer } from "../tokenizer/types.js";
import { Episode, promptRules } from "./episode.js";
import type { Trajectory } from "./types.js";

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
  const rules = promptRules(tokenizer, opts.renderTools ? tools : undefined);
  const out: Trajectory[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < opts.tasks.length; i = next++) {
      out.push(await demo(i, opts.tasks[i] as number));
    }
  };
  const demo = async (episode: number, index: number): Promise<Trajectory> => {
    const id = { episode, group: episode, task: { split: opts.split, index } };
    const start = await client.reset({ split: opts.split, index });
    if (!start.ok) return Episode.failed(id, start.error);
    const e = new Episode(id, start.value, rules);
    while (!e.ended && e.steps.length < opts.maxSteps) {
      const expert = await client.expert(e.session);
      const action = expert.ok ? (expert.value.action.content ?? "") : "";
      const result = expert.ok ? await client.step(e.session, { content: action }) : expert;
      if (!result.ok) return e.finish(result.error);
      const responseIds = [...tokenizer.encode(action), tokenizer.special.endOfTurn];
      e.record(
        {
          promptIds: e.context.promptIds,
          responseIds,
          responseLogprobs: [],
          action,
          toolCalls: parseHermesCalls(action).length,
        },
        result.value,
      );
    }
    return e.finish();
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency) }, worker));
  return out.sort((a, b) => a.episode - b.episode);
}
