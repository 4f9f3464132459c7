import { z } from "zod";
import { hashString, rng } from "../../../shared/random.js";
import { formatHermesCall } from "../../../shared/tool-calls.js";
import { defineEnvironment } from "../../kit/index.js";

/** One task: the secret number, somewhere in 1..max. */
type Task = { secret: number; max: number };

/** What the episode carries from step to step (sealed into the session token, never stored). */
const State = z.object({ low: z.number().int(), high: z.number().int(), guesses: z.number().int() });
type State = z.infer<typeof State>;

/** Behaviour settings: part of the content hash, so changing them changes the manifest. */
type Config = { max: number };

const SPLITS: Record<string, number> = { train: 10_000, test: 1_000 };

const SYSTEM = `Find the secret number between 1 and 100. Call the guess tool like
<tool_call>{"name": "guess", "arguments": {"number": 50}}</tool_call>
and it answers higher, lower or correct. When you know the number, answer: #### <number>`;

export const guessNumber = defineEnvironment<Task, State, Config>({
  name: "guess-number",
  version: "1.0.0",
  description: "Find a secret number with a tool that says higher or lower; answer as #### <number>.",

  // Tools: a zod schema for the arguments (the manifest shows it as JSON Schema; the kit validates
  // every call against it) and a run function. A tool may return plain text, or text plus a new state.
  tools: {
    guess: {
      description: "Guess the secret number. The reply is higher, lower or correct.",
      parameters: z.object({ number: z.number().int().describe("your guess, 1 to 100") }),
      run: ({ number }, { task, state }) => {
        const guesses = state.guesses + 1;
        if (number === task.secret)
          return { content: "correct", state: { low: number, high: number, guesses } };
        if (number < task.secret) {
          return { content: "higher", state: { ...state, low: Math.max(state.low, number + 1), guesses } };
        }
        return { content: "lower", state: { ...state, high: Math.min(state.high, number - 1), guesses } };
      },
    },
  },

  // Tasks: deterministic by split and index, so a session at (split, index) is always the same task.
  tasks: {
    id: "guess-number-procedural/1",
    splits: Object.keys(SPLITS),
    count: (split) => SPLITS[split] ?? 0,
    get: (split, index) => ({ secret: rng(hashString(`guess/${split}`) + index).int(1, 100), max: 100 }),
  },
  limits: { maxSteps: 10 },
  reward: { min: 0, max: 1 },
  config: { max: 100 },

  initialState: (task) => ({ low: 1, high: task.max, guesses: 0 }),
  stateSchema: State,
  firstObservation: ({ task }) => [
    { role: "system", content: SYSTEM },
    { role: "user", content: `The secret is between 1 and ${task.max}. What is it?` },
  ],

  // An action without a tool call is the final answer: score it and the episode ends.
  finish: (answer, { task, state }) => {
    const given = /####\s*(-?\d+)/.exec(answer)?.[1];
    const correct = given !== undefined && Number(given) === task.secret;
    return {
      reward: correct ? 1 : 0,
      components: { outcome: correct ? 1 : 0 },
      info: { guesses: state.guesses },
    };
  },

  // The scripted expert: binary search, then the answer. It sees the same state the tools do.
  expert: ({ state }) =>
    state.low === state.high
      ? { content: `#### ${state.low}` }
      : { content: formatHermesCall("guess", { number: Math.floor((state.low + state.high) / 2) }) },
});
