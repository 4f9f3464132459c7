import { z } from "zod";
import { formatHermesCall } from "../../shared/tool-calls.js";
import { type AnswerFormat, sameNumber } from "../calculator/answer.js";
import { GSM8K_SOURCE } from "../calculator/gsm8k.js";
import type { CalcTask } from "../calculator/tasks.js";
import { datasetTaskSource, requireDataset } from "../data/dataset-source.js";
import { exactAnswerFinish } from "../kit/exact-answer.js";
import { defineEnvironment } from "../kit/index.js";
import { checkLevel, lowerLevels, type Variant, variantAtLevel, withLevel } from "../kit/levels.js";
import { finalAnswer } from "./answer.js";
import { gsm8kCodeTask } from "./gsm8k-program.js";
import { runJavaScript } from "./run-queue.js";
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits, type SandboxRun } from "./sandbox.js";
import { CODE_LEVELS, CODE_SPLITS, type CodeTask, codeTask } from "./tasks.js";

export type CodeConfig = {
  /** Per-call sandbox limits: deadline, heap, stack and output size. */
  sandbox: SandboxLimits;
  /** A call that waited this long behind other programs in this isolate is refused as busy. */
  maxQueueWaitMs: number;
  /** `strict` (the default): `\boxed{n}` in `<answer>` or `#### n`; `flexible` adds calculator's flexible forms. */
  answerFormat: AnswerFormat;
  /** Difficulty level of the procedural tasks, 1 to `CODE_LEVELS` (see `tasks.ts`); absent: the top. */
  level?: number;
};

export const DEFAULT_CODE_CONFIG: CodeConfig = {
  sandbox: DEFAULT_SANDBOX_LIMITS,
  maxQueueWaitMs: 5000,
  answerFormat: "strict",
};

/** The number the last successful run produced (its value, else its last printed line), for the expert. */
const CodeState = z.object({ lastNumber: z.number().nullable() });
type CodeState = z.infer<typeof CodeState>;

const SYSTEM =
  'Solve the problem with JavaScript. Run code like <tool_call>{"name":"run_javascript","arguments":{"code":"console.log(6*7)"}}</tool_call>; you get its console.log output and last value. End with <answer>\\boxed{<number>}</answer>';

function numberIn(text: string | undefined): number | null {
  const t = text?.trim() ?? "";
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : null;
}

/** The tool message for one run: output and value, or the error, cut to `outputChars` with a note. */
export function describeRun(run: SandboxRun, outputChars: number) {
  const cut = (s: string) =>
    s.length <= outputChars
      ? s
      : `${s.slice(0, outputChars)}\n[output truncated at ${outputChars} characters]`;
  if (!run.ok) {
    const printed = run.error.stdout === "" ? "" : `\nstdout:\n${run.error.stdout}`;
    return { content: cut(`Error: ${run.error.message}${printed}`), error: true, lastNumber: null };
  }
  const { stdout, value, truncated } = run.value;
  const parts = [
    ...(stdout === ""
      ? []
      : [`stdout:\n${stdout}${truncated ? `[output truncated at ${outputChars} characters]\n` : ""}`]),
    ...(value === undefined ? [] : [`result: ${value}`]),
  ];
  const lastLine = stdout.trimEnd().split("\n").at(-1);
  return {
    content: cut(parts.length === 0 ? "(no output)" : parts.join("")),
    error: false,
    lastNumber: numberIn(value) ?? numberIn(lastLine),
  };
}

const PROCEDURAL = {
  name: "code",
  description:
    "ReTool-style problems solved by running JavaScript in a QuickJS sandbox; answer as <answer>\\boxed{n}</answer>.",
  tasks: {
    id: "code-procedural/1",
    splits: Object.keys(CODE_SPLITS),
    count: (split) => CODE_SPLITS[split as keyof typeof CODE_SPLITS] ?? 0,
    get: (split, index) => codeTask(split, index),
  },
} satisfies Variant<CodeTask>;

const LEVEL_TEXT: Record<number, string> = { 1: "one printed expression", 2: "one short loop" };

/** The procedural tasks of one level: `code-l<level>` below the top, `code` at it. */
export function codeVariant(level: number): Variant<CodeTask> {
  return variantAtLevel(PROCEDURAL, CODE_LEVELS, level, LEVEL_TEXT[level], (split, index) =>
    codeTask(split, index, level),
  );
}

/**
 * A code env; without a variant, the procedural tasks of `config.level` (1 to `CODE_LEVELS`, the top
 * when absent), the level in the config and the task source's id (`kit/levels.ts`).
 */
export function createCodeEnvironment(
  levelConfig: CodeConfig = DEFAULT_CODE_CONFIG,
  variant: Variant<CodeTask> = codeVariant(checkLevel(levelConfig.level, CODE_LEVELS)),
) {
  const config = withLevel(levelConfig, checkLevel(levelConfig.level, CODE_LEVELS), CODE_LEVELS);
  return defineEnvironment<CodeTask, CodeState, CodeConfig>({
    name: variant.name,
    version: "1.0.0",
    description: variant.description,
    tools: {
      run_javascript: {
        description:
          "Run JavaScript in a fresh QuickJS sandbox (no network, timers or host access; 1 s, 32 MiB). Returns console.log output and the last expression's value.",
        parameters: z.object({ code: z.string().min(1).describe("a JavaScript program") }),
        run: async ({ code }, ctx) => {
          const run = await runJavaScript(code, config.sandbox, {
            maxWaitMs: config.maxQueueWaitMs,
            signal: ctx.signal,
          });
          const { lastNumber, ...outcome } = describeRun(run, config.sandbox.outputChars);
          return { ...outcome, state: { lastNumber } };
        },
      },
    },
    toolAliases: { code_interpreter: "run_javascript" },
    tasks: variant.tasks,
    limits: { maxSteps: 6, maxActionChars: 8192, stepTimeoutMs: 15_000 },
    reward: { min: 0, max: 1 },
    config,
    initialState: () => ({ lastNumber: null }),
    stateSchema: CodeState,
    firstObservation: ({ task }) => [
      { role: "system", content: SYSTEM },
      { role: "user", content: task.question },
    ],
    finish: exactAnswerFinish((text) => finalAnswer(text, config.answerFormat), sameNumber),
    // Runs the reference program, then answers with the number the sandbox gave back (not the stored
    // answer), so expert success also checks the program and the sandbox.
    expert: ({ task, state, step }) => {
      if (state.lastNumber !== null) return { content: `<answer>\\boxed{${state.lastNumber}}</answer>` };
      if (step < 3) return { content: formatHermesCall("run_javascript", { code: task.program }) };
      return { content: "<answer>\\boxed{unknown}</answer>" };
    },
  });
}

export const code = createCodeEnvironment();

/** The lower levels, served as `code-l1` and `code-l2` (level 3 is `code`). */
export const codeLevels = lowerLevels(CODE_LEVELS, (level) =>
  createCodeEnvironment({ ...DEFAULT_CODE_CONFIG, level }),
);

const gsm8kTasks = datasetTaskSource<CalcTask>(GSM8K_SOURCE);

/** GSM8K with the code tool: the imported `gsm8k` dataset (shared with calculator-gsm8k), programs from its annotations. */
export const codeGsm8k = requireDataset(
  createCodeEnvironment(DEFAULT_CODE_CONFIG, {
    name: "code-gsm8k",
    description:
      "GSM8K word problems solved by running JavaScript in a QuickJS sandbox; answer as <answer>\\boxed{n}</answer>.",
    tasks: {
      ...gsm8kTasks,
      id: async (runtime) =>
        `code-gsm8k/1:${await (typeof gsm8kTasks.id === "function" ? gsm8kTasks.id(runtime) : gsm8kTasks.id)}`,
      get: async (split, index, runtime) => gsm8kCodeTask(await gsm8kTasks.get(split, index, runtime)),
    },
  }),
  GSM8K_SOURCE,
);
