import type { CalcTask } from "../calculator/tasks.js";
import type { CodeTask } from "./tasks.js";

/**
 * A GSM8K annotation (calculator syntax) as a JavaScript expression: `×`/`÷`, `^` for powers, `$`,
 * thousands commas and postfix percent (`50%` is `50/100`). Returns undefined when what is left is
 * not plain arithmetic, so the program never contains anything but numbers and operators.
 */
export function annotationToJs(expr: string): string | undefined {
  const js = expr
    .replace(/[×x]/g, "*")
    .replace(/÷/g, "/")
    .replace(/−/g, "-")
    .replace(/\$/g, "")
    .replace(/(\d),(?=\d{3}\b)/g, "$1")
    .replace(/\^/g, "**")
    .replace(/(\d+(?:\.\d+)?|\))\s*%(?!\s*[\d(])/g, "($1/100)")
    .trim();
  return /^[\d.+\-*/%() ]+$/.test(js) && /\d/.test(js) ? js : undefined;
}

/**
 * A GSM8K task for the code environment. The reference program computes each annotated step in
 * order and prints the last one; with no usable annotation it prints the stated answer.
 */
export function gsm8kCodeTask(task: CalcTask): CodeTask {
  const steps = task.calls.map(annotationToJs).filter((s): s is string => s !== undefined);
  const lines = steps.map((s, i) => `const step${i + 1} = ${s};`);
  const program =
    steps.length === 0
      ? `console.log(${task.answer});`
      : [...lines, `console.log(step${steps.length});`].join("\n");
  return { question: task.question, answer: task.answer, program };
}
