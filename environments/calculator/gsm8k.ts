import { z } from "zod";
import type { Result } from "../../shared/result.js";
import type { DatasetSourceOptions } from "../data/dataset-source.js";
import type { ImportedDataset } from "../data/datasets.js";
import { extractAnswer } from "./answer.js";
import type { CalcTask } from "./tasks.js";

/** Name under which GSM8K is stored; the `calculator-gsm8k` and `code-gsm8k` envs read it. */
export const GSM8K_DATASET = "gsm8k";

/** Where both GSM8K envs take their tasks from, and how to import them. */
export const GSM8K_SOURCE: DatasetSourceOptions = {
  dataset: GSM8K_DATASET,
  splits: ["train", "test"],
  importHint:
    "npm run data -- import gsm8k <path>/train.jsonl and .../test.jsonl (add --d1 local|remote for a worker)",
};

const Record = z.object({ question: z.string().min(1), answer: z.string() });

/** The expressions of a GSM8K solution's `<<expr=value>>` annotations, in order. */
export function annotationCalls(solution: string): string[] {
  return [...solution.matchAll(/<<([^<>]*)>>/g)].flatMap((m) => {
    const body = m[1] ?? "";
    const eq = body.lastIndexOf("=");
    const expr = (eq < 0 ? body : body.slice(0, eq)).trim();
    return expr === "" ? [] : [expr];
  });
}

/** One GSM8K record as a calculator task: the question, the `#### n` answer and the annotation calls. */
export function gsm8kTask(record: { question: string; answer: string }): Result<CalcTask> {
  const answer = extractAnswer(record.answer);
  if (answer === undefined) return { ok: false, error: "the answer does not end in #### <number>" };
  return { ok: true, value: { question: record.question, answer, calls: annotationCalls(record.answer) } };
}

/**
 * Parses GSM8K jsonl (`{question, answer}` per line) into the tasks of one split. Any bad line fails
 * the whole import, naming the line, so a partial file is never stored as if it were whole.
 */
export function importGsm8k(text: string, options: { split?: string }): Result<ImportedDataset> {
  const { split } = options;
  if (split === undefined) {
    return { ok: false, error: "GSM8K needs a split: name the file train.jsonl/test.jsonl or pass --split" };
  }
  const tasks: ImportedDataset["tasks"] = [];
  const lines = text.split("\n");
  for (const [i, line] of lines.entries()) {
    if (line.trim() === "") continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      return { ok: false, error: `line ${i + 1}: not valid JSON` };
    }
    const record = Record.safeParse(json);
    if (!record.success) return { ok: false, error: `line ${i + 1}: expected {question, answer} strings` };
    const task = gsm8kTask(record.data);
    if (!task.ok) return { ok: false, error: `line ${i + 1}: ${task.error}` };
    tasks.push({ split, payload: task.value });
  }
  if (tasks.length === 0) return { ok: false, error: "no GSM8K records found" };
  return { ok: true, value: { name: GSM8K_DATASET, tasks } };
}
