import { z } from "zod";
import { formatHermesCall } from "../../shared/tool-calls.js";
import { datasetTaskSource, requireDataset } from "../data/dataset-source.js";
import { exactAnswerFinish } from "../kit/exact-answer.js";
import { defineEnvironment } from "../kit/index.js";
import { checkLevel, lowerLevels, type Variant, variantAtLevel, withLevel } from "../kit/levels.js";
import { type AnswerFormat, extractAnswer, sameNumber } from "./answer.js";
import { evaluate, formatNumber } from "./evaluator.js";
import { GSM8K_SOURCE } from "./gsm8k.js";
import { CALCULATOR_LEVELS, type CalcTask, PROCEDURAL_SPLITS, proceduralTask } from "./tasks.js";

export type CalculatorConfig = {
  /**
   * Bonus for a calculator call whose result is a value on the solution path not yet paid for (each
   * expert call's result); 0, the default, turns process reward off.
   */
  processReward: number;
  /** Most process reward one episode can earn. */
  processRewardCap: number;
  /**
   * Which final answers count: `strict` (the default) reads only `#### n`, as GSM8K writes it;
   * `flexible` also reads `\boxed{n}`, "The answer is n" and at last any number (verl's flexible
   * rule, lm-eval-harness's flexible-extract). See `answer.ts`.
   */
  answerFormat: AnswerFormat;
  /**
   * Difficulty level of the procedural tasks, 1 to `CALCULATOR_LEVELS − 1` (see `tasks.ts`); absent
   * means the top level, today's tasks, so the built-in `calculator`'s content hash is unchanged.
   */
  level?: number;
};

export const DEFAULT_CALCULATOR_CONFIG: CalculatorConfig = {
  processReward: 0,
  processRewardCap: 0.3,
  answerFormat: "strict",
};

/**
 * Process reward paid so far and the solution-path values it paid for: each value pays once and the
 * total stays under the cap across steps.
 */
const CalcState = z.object({ bonus: z.number(), paid: z.array(z.number()) });
type CalcState = z.infer<typeof CalcState>;

const SYSTEM =
  'Solve the problem. Call the calculator like <tool_call>{"name":"calculator","arguments":{"expression":"2*(3+4)"}}</tool_call> then end with: #### <number>';

/** Values on a task's solution path: the result of each of its expert calls. */
function pathValues(task: CalcTask): number[] {
  return task.calls.flatMap((c) => {
    const r = evaluate(c);
    return r.ok ? [r.value] : [];
  });
}

/** The built-in procedural tasks: the default `calculator`. */
export const PROCEDURAL_VARIANT = {
  name: "calculator",
  description: "Multi-step arithmetic word problems solved with a calculator tool; answer as #### <number>.",
  tasks: {
    id: "calculator-procedural/2",
    splits: Object.keys(PROCEDURAL_SPLITS),
    count: (split) => PROCEDURAL_SPLITS[split as keyof typeof PROCEDURAL_SPLITS] ?? 0,
    get: (split, index) => proceduralTask(split, index),
  },
} satisfies Variant<CalcTask>;

const LEVEL_TEXT: Record<number, string> = {
  1: "one operation (+ or − on numbers up to 20, × or ÷ within the times table)",
  2: "two operations",
  3: "up to three operations",
};

/** The procedural tasks of one level: `calculator-l<level>` below the top, `calculator` at it. */
export function proceduralVariant(level: number): Variant<CalcTask> {
  return variantAtLevel(PROCEDURAL_VARIANT, CALCULATOR_LEVELS, level, LEVEL_TEXT[level], (split, index) =>
    proceduralTask(split, index, level),
  );
}

const MAX_STEPS = 6;

/**
 * The expert's calls for `step`: the solution path's calls spread over the first `MAX_STEPS - 1`
 * actions (several per action when the path is long), leaving the last step for the answer.
 */
export function expertCalls(calls: readonly string[], step: number): string[] {
  const perAction = Math.max(1, Math.ceil(calls.length / (MAX_STEPS - 1)));
  return calls.slice(step * perAction, (step + 1) * perAction);
}

/**
 * A calculator env; without a variant, the procedural tasks of `config.level` (1 to
 * `CALCULATOR_LEVELS`, the top when absent). The level is in the config and the task source's id, so
 * each level has its own content hash; the top level is kept out of both (`kit/levels.ts`).
 */
export function createCalculator(
  levelConfig: CalculatorConfig = DEFAULT_CALCULATOR_CONFIG,
  variant: Variant<CalcTask> = proceduralVariant(checkLevel(levelConfig.level, CALCULATOR_LEVELS)),
) {
  const config = withLevel(levelConfig, checkLevel(levelConfig.level, CALCULATOR_LEVELS), CALCULATOR_LEVELS);
  return defineEnvironment<CalcTask, CalcState, CalculatorConfig>({
    name: variant.name,
    version: "1.0.0",
    description: variant.description,
    tools: {
      calculator: {
        description: "Evaluate an arithmetic expression: + - * / ^ %, parentheses and decimals.",
        parameters: z.object({ expression: z.string().describe("for example (3+4)*2.5") }),
        run: ({ expression }, ctx) => {
          const r = evaluate(expression);
          if (!r.ok) return { content: `Error: ${r.error}`, error: true };
          const content = formatNumber(r.value);
          if (config.processReward <= 0) return content;
          const { bonus, paid } = ctx.state;
          const hit = pathValues(ctx.task).findIndex((v, i) => !paid.includes(i) && sameNumber(r.value, v));
          const pay = Math.min(config.processReward, config.processRewardCap - bonus);
          if (hit < 0 || pay <= 0) return content;
          return { content, rewards: { process: pay }, state: { bonus: bonus + pay, paid: [...paid, hit] } };
        },
      },
    },
    tasks: variant.tasks,
    // In order, so that two on-path calls in one action see each other's bonus and the cap holds.
    toolConcurrency: "sequential",
    limits: { maxSteps: MAX_STEPS, maxActionChars: 2048, stepTimeoutMs: 5000 },
    reward: { min: 0, max: 1 + config.processRewardCap },
    config,
    initialState: () => ({ bonus: 0, paid: [] }),
    stateSchema: CalcState,
    firstObservation: ({ task }) => [
      { role: "system", content: SYSTEM },
      { role: "user", content: task.question },
    ],
    finish: exactAnswerFinish((text) => extractAnswer(text, config.answerFormat), sameNumber),
    expert: ({ task, step }) => {
      const calls = expertCalls(task.calls, step);
      if (calls.length === 0) return { content: `#### ${formatNumber(task.answer)}` };
      return {
        content: calls.map((expression) => formatHermesCall("calculator", { expression })).join("\n"),
      };
    },
  });
}

export const calculator = createCalculator();

/** The lower levels, served as `calculator-l1` … `calculator-l3` (level 4 is `calculator`). */
export const calculatorLevels = lowerLevels(CALCULATOR_LEVELS, (level) =>
  createCalculator({ ...DEFAULT_CALCULATOR_CONFIG, level }),
);

/** GSM8K served by the same calculator: tasks from the imported dataset, its hash in the content hash. */
export const calculatorGsm8k = requireDataset(
  createCalculator(DEFAULT_CALCULATOR_CONFIG, {
    name: "calculator-gsm8k",
    description: "GSM8K grade-school math word problems with a calculator tool; answer as #### <number>.",
    tasks: datasetTaskSource<CalcTask>(GSM8K_SOURCE),
  }),
  GSM8K_SOURCE,
);
