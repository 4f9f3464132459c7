import type { Score } from "./types.js";

/**
 * A `finish` that pays 1 for a final answer equal to the task's and 0 otherwise: `read` takes the
 * answer out of the text (undefined when there is none), `same` compares it with `task.answer`. The
 * info names both, the given answer as null when none was read.
 */
export function exactAnswerFinish<Answer>(
  read: (text: string) => Answer | undefined,
  same: (given: Answer, expected: Answer) => boolean,
): (text: string, ctx: { task: { answer: Answer } }) => Score {
  return (text, { task }) => {
    const given = read(text);
    const correct = given !== undefined && same(given, task.answer);
    return {
      reward: correct ? 1 : 0,
      components: { outcome: correct ? 1 : 0 },
      success: correct,
      info: { answer: given ?? null, expected: task.answer },
    };
  };
}
