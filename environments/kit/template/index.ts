import { defineEnvironment } from "edgegym/kit";
import { expert } from "./expert.js";
import { score } from "./score.js";
import { type Task, tasks } from "./tasks.js";
import { State, tools } from "./tools.js";

const SYSTEM = `Find the capital of the country you are asked about. Call the atlas tool like
<tool_call>{"name": "atlas", "arguments": {"country": "France"}}</tool_call>
then answer: #### <capital>`;

/** The environment: its tools, tasks, scorer and expert, wired by `defineEnvironment`. */
export const myEnv = defineEnvironment<Task, State, Record<string, never>>({
  name: "my-env",
  version: "1.0.0",
  description: "Find a country's capital with an atlas tool; answer as #### <capital>.",
  tools,
  tasks,
  limits: { maxSteps: 4 },
  reward: { min: 0, max: 1 },
  config: {},
  stateSchema: State,
  initialState: () => ({ lookups: 0 }),
  firstObservation: ({ task }) => [
    { role: "system", content: SYSTEM },
    { role: "user", content: `What is the capital of ${task.country}?` },
  ],
  finish: score,
  expert,
});
