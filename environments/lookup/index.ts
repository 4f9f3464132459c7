import { z } from "zod";
import { defineEnvironment } from "../kit/index.js";

/** The hidden function the `f` tool computes; the policy only sees its results. */
export const secret = (x: number) => x + 17;

/** Short on purpose: the learning test's policy has a context of 64 byte tokens. */
const SYSTEM = "Use f(x), answer =f(x).";

/** A lookup task: the number to look up (test indices walk the same 90 numbers from another offset). */
export type LookupTask = { x: number };

/**
 * A deliberately tiny two-step tool task, the built-in task of the trainer's learning test
 * (trainer/pipeline/learning.ts): the user gives `x=37`, the agent calls the tool, here with the short
 * text action `f37` (a Hermes or OpenAI call works too), reads the result and answers `=54`. Short
 * enough for a 1-layer byte-level policy to learn on two CPU cores in seconds. Any change to the tasks,
 * the observations or the expert changes the learning test's figures.
 */
export const lookup = defineEnvironment<LookupTask, Record<string, never>, Record<string, never>>({
  name: "lookup",
  version: "1.0.0",
  description: "Look a number up with the f tool and answer =<result>.",
  tools: {
    f: {
      description: "the lookup table",
      parameters: z.object({ x: z.number().int() }),
      run: ({ x }) => String(secret(x)),
    },
  },
  tasks: {
    id: "lookup/1",
    splits: ["train", "test"],
    count: (split) => (split === "test" ? 100 : 10_000),
    get: (split, index) => ({ x: 10 + ((index * 37 + (split === "test" ? 11 : 0)) % 90) }),
  },
  limits: { maxSteps: 3 },
  reward: { min: 0, max: 1 },
  config: {},
  initialState: () => ({}),
  stateSchema: z.record(z.string(), z.never()),
  firstObservation: ({ task }) => [
    { role: "system", content: SYSTEM },
    { role: "user", content: `x=${task.x}` },
  ],
  textAction: (content) => {
    const m = /^f(\d+)$/.exec(content.trim());
    return m ? [{ name: "f", arguments: { x: Number(m[1]) } }] : undefined;
  },
  finish: (answer, { task }) => {
    const correct = answer.trim() === `=${secret(task.x)}`;
    return { reward: correct ? 1 : 0, components: { outcome: correct ? 1 : 0 } };
  },
  expert: ({ task, step }) => ({ content: step === 0 ? `f${task.x}` : `=${secret(task.x)}` }),
});
