import type { Score } from "edgegym/kit";
import type { Task } from "./tasks.js";
import type { State } from "./tools.js";

/** Case and spacing don't count; anything else does. */
const normalize = (s: string) => s.trim().toLowerCase().replace(/\s+/g, " ");

/** The answer after `####`, if the model gave one. */
export const answerOf = (text: string): string | undefined => /####\s*(.+)/.exec(text)?.[1];

/** The scorer: a final answer (an action without a tool call) ends the episode with this reward. */
export function score(text: string, { task, state }: { task: Task; state: State }): Score {
  const answer = answerOf(text);
  const correct = answer !== undefined && normalize(answer) === normalize(task.capital);
  return {
    reward: correct ? 1 : 0,
    components: { outcome: correct ? 1 : 0 },
    info: { answer: answer ?? null, lookups: state.lookups },
  };
}
