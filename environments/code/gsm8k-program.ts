import { sameNumber } from "../calculator/answer.js";
import { evaluate } from "../calculator/evaluator.js";
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
 * order and prints the step whose value is the stated answer (the last such step; GSM8K solutions
 * often finish with an unannotated step, and then the last step is printed, which is then wrong).
 * With no usable annotation it prints the stated answer, as the calculator's expert answers directly.
 */
export function gsm8kCodeTask(task: CalcTask): CodeTask {
  const steps = task.calls.flatMap((call) => {
    const js = annotationToJs(call);
    return js === undefined ? [] : [{ js, value: evaluate(call) }];
  });
  const lines = steps.map((s, i) => `const step${i + 1} = ${s.js};`);
  const answerAt = steps.findLastIndex((s) => s.value.ok && sameNumber(s.value.value, task.answer));
  const printed = answerAt >= 0 ? answerAt + 1 : steps.length;
  const program =
    steps.length === 0
      ? `console.log(${task.answer});`
      : [...lines, `console.log(step${printed});`].join("\n");
  return { question: task.question, answer: task.answer, program };
}
