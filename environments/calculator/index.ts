import { z } from "zod";
import { formatHermesCall } from "../../shared/tool-calls.js";
import { defineEnvironment } from "../kit/index.js";
import { extractAnswer, sameNumber } from "./answer.js";
import { evaluate, formatNumber } from "./evaluator.js";
import { type CalcTask, PROCEDURAL_SPLITS, proceduralTask } from "./tasks.js";

export type CalculatorConfig = {
  /** Bonus per calculator call whose result lies on the solution path; 0 turns process reward off. */
  processReward: number;
  /** Most process reward one episode can earn. */
  processRewardCap: number;
};

export const DEFAULT_CALCULATOR_CONFIG: CalculatorConfig = { processReward: 0, processRewardCap: 0.3 };

/** Calculator results seen so far and process reward paid, so the cap holds across steps. */
type CalcState = { bonus: number };

const SYSTEM =
  'Solve the problem. Call the calculator like <tool_call>{"name":"calculator","arguments":{"expression":"2*(3+4)"}}</tool_call> then end with: #### <number>';

/** Values on a task's solution path: the result of each of its expert calls. */
function pathValues(task: CalcTask): number[] {
  return task.calls.flatMap((c) => {
    const r = evaluate(c);
    return r.ok ? [r.value] : [];
  });
}

export function createCalculator(config: CalculatorConfig = DEFAULT_CALCULATOR_CONFIG) {
  return defineEnvironment<CalcTask, CalcState, CalculatorConfig>({
    name: "calculator",
    version: "1.0.0",
    description:
      "Multi-step arithmetic word problems solved with a calculator tool; answer as #### <number>.",
    tools: {
      calculator: {
        description: "Evaluate an arithmetic expression: + - * / ^ %, parentheses and decimals.",
        parameters: z.object({ expression: z.string().describe("for example (3+4)*2.5") }),
        run: ({ expression }, ctx) => {
          const r = evaluate(expression);
          if (!r.ok) return { content: `Error: ${r.error}`, error: true };
          const content = formatNumber(r.value);
          if (config.processReward <= 0 || !pathValues(ctx.task).some((v) => sameNumber(r.value, v)))
            return content;
          const bonus = Math.min(config.processReward, config.processRewardCap - ctx.state.bonus);
          if (bonus <= 0) return content;
          return { content, rewards: { process: bonus }, state: { bonus: ctx.state.bonus + bonus } };
        },
      },
    },
    tasks: {
      id: "calculator-procedural/1",
      splits: Object.keys(PROCEDURAL_SPLITS),
      count: (split) => PROCEDURAL_SPLITS[split as keyof typeof PROCEDURAL_SPLITS] ?? 0,
      get: (split, index) => proceduralTask(split, index),
    },
    limits: { maxSteps: 6, maxActionChars: 2048, stepTimeoutMs: 5000 },
    reward: { min: 0, max: 1 + config.processRewardCap },
    config,
    initialState: () => ({ bonus: 0 }),
    firstObservation: ({ task }) => [
      { role: "system", content: SYSTEM },
      { role: "user", content: task.question },
    ],
    finish: (answer, { task }) => {
      const given = extractAnswer(answer);
      const correct = given !== undefined && sameNumber(given, task.answer);
      return {
        reward: correct ? 1 : 0,
        components: { outcome: correct ? 1 : 0 },
        info: { answer: given ?? null, expected: task.answer },
      };
    },
    expert: ({ task, step }) => {
      const call = task.calls[step];
      if (call !== undefined) return { content: formatHermesCall("calculator", { expression: call }) };
      return { content: `#### ${formatNumber(task.answer)}` };
    },
  });
}

export const calculator = createCalculator();
