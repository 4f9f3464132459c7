import { sameNumber } from "../../environments/calculator/answer.js";
import { evaluate } from "../../environments/calculator/evaluator.js";
import { playExpert } from "../../environments/calculator/expert-play.js";
import { GSM8K_SOURCE, importGsm8k } from "../../environments/calculator/gsm8k.js";
import { createCalculator, DEFAULT_CALCULATOR_CONFIG } from "../../environments/calculator/index.js";
import type { CalcTask } from "../../environments/calculator/tasks.js";
import { gsm8kCodeTask } from "../../environments/code/gsm8k-program.js";
import { runJavaScript } from "../../environments/code/run-queue.js";
import { DEFAULT_SANDBOX_LIMITS } from "../../environments/code/sandbox.js";
import { datasetTaskSource } from "../../environments/data/dataset-source.js";
import { saveDataset } from "../../environments/data/datasets.js";
import { openLocalDb } from "../../environments/data/local-db.js";
import { generateSecrets } from "../../environments/kit/index.js";

/**
 * Measurements over GSM8K text (JSONL, one problem a line). The tests run them on the committed slice
 * (tests/fixtures/gsm8k) and `npm run check:data` on the whole files, so both go through one code path.
 */

function imported(text: string, split: string) {
  const r = importGsm8k(text, { split });
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

// The env refuses its expert on held-out splits; this copy (same factory, same tasks) lets us measure it.
const evalGsm8k = createCalculator(DEFAULT_CALCULATOR_CONFIG, {
  name: "calculator-gsm8k",
  description: "GSM8K, expert allowed on every split",
  tasks: datasetTaskSource<CalcTask>({ ...GSM8K_SOURCE, heldOut: [] }),
});

/** The calculator expert replaying each problem's annotations: solved (reward 1), tool errors, truncations. */
export async function calculatorExpertOnGsm8k(text: string, split = "test") {
  const dataset = imported(text, split);
  const db = await openLocalDb(":memory:");
  try {
    const saved = await saveDataset(db, dataset);
    if (!saved.ok) throw new Error(saved.error);
    const runtime = { bindings: { ...(await generateSecrets()), EDGEGYM_DB: db } };
    const problems = dataset.tasks.length;
    let solved = 0;
    let toolErrors = 0;
    let truncated = 0;
    for (let i = 0; i < problems; i++) {
      const ep = await playExpert(evalGsm8k, runtime, split, i);
      if (ep.reward === 1) solved++;
      toolErrors += ep.toolErrors;
      if (ep.truncated) truncated++;
    }
    return { problems, solved, toolErrors, truncated };
  } finally {
    db.close();
  }
}

/**
 * Every `<<expr=value>>` annotation evaluated by the calculator: how many there are, which fail to
 * evaluate, which disagree with the annotated value, and how many annotate a non-number (e.g. `3/4=3/4`).
 */
export function gsm8kAnnotations(texts: readonly string[]) {
  let total = 0;
  let nonNumeric = 0;
  const failed: string[] = [];
  const disagree: string[] = [];
  for (const text of texts) {
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      const { answer } = JSON.parse(line) as { answer: string };
      for (const m of answer.matchAll(/<<([^<>]*)=([^<>=]*)>>/g)) {
        total++;
        const [, expr = "", annotated = ""] = m;
        const r = evaluate(expr);
        const number = annotated.replace(/[$,\s]/g, "");
        if (!r.ok) failed.push(`${expr}: ${r.error}`);
        else if (!/^-?[\d.]+$/.test(number)) nonNumeric++;
        else if (!sameNumber(r.value, Number(number))) disagree.push(m[0]);
      }
    }
  }
  return { total, failed, disagree, nonNumeric };
}

/** The code env's reference programs (written from the annotations) run in the sandbox: how many print the answer. */
export async function gsm8kPrograms(text: string, split = "test") {
  const tasks = imported(text, split).tasks.map((t) => gsm8kCodeTask(t.payload as CalcTask));
  let solved = 0;
  for (const task of tasks) {
    const run = await runJavaScript(task.program, DEFAULT_SANDBOX_LIMITS, { maxWaitMs: 60_000 });
    if (run.ok && sameNumber(Number(run.value.stdout.trim()), task.answer)) solved++;
  }
  return { problems: tasks.length, solved };
}
