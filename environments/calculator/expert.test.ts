import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { datasetTaskSource } from "../data/dataset-source.js";
import { saveDataset } from "../data/datasets.js";
import { type LocalDb, openLocalDb } from "../data/local-db.js";
import { generateSecrets } from "../kit/index.js";
import { sameNumber } from "./answer.js";
import { evaluate } from "./evaluator.js";
import { playExpert } from "./expert-play.js";
import { importGsm8k } from "./gsm8k.js";
import { createCalculator, DEFAULT_CALCULATOR_CONFIG, GSM8K_SOURCE, PROCEDURAL_VARIANT } from "./index.js";
import { type CalcTask, PROCEDURAL_SPLITS } from "./tasks.js";

const GSM8K_DIR = fileURLToPath(new URL("../../../shared/data/gsm8k/", import.meta.url));

function readGsm8k(file: string): string {
  const path = `${GSM8K_DIR}${file}`;
  if (!existsSync(path)) {
    throw new Error(
      `the GSM8K sample is missing: expected ${path} (the ../shared/data folder beside the repo)`,
    );
  }
  return readFileSync(path, "utf8");
}

// The env refuses its expert on held-out splits; these copies (same factory, same tasks) let us measure it.
const evalProcedural = createCalculator(DEFAULT_CALCULATOR_CONFIG, {
  ...PROCEDURAL_VARIANT,
  tasks: { ...PROCEDURAL_VARIANT.tasks, heldOut: [] },
});
const evalGsm8k = createCalculator(DEFAULT_CALCULATOR_CONFIG, {
  name: "calculator-gsm8k",
  description: "GSM8K, expert allowed on every split",
  tasks: datasetTaskSource<CalcTask>({ ...GSM8K_SOURCE, heldOut: [] }),
});

let db: LocalDb;
let secrets: Record<string, string>;
beforeAll(async () => {
  db = await openLocalDb(":memory:");
  secrets = await generateSecrets();
});
afterAll(() => db.close());

describe("the calculator expert", () => {
  it("scores 1 on at least 99% of GSM8K test.jsonl, replaying every annotation without a tool error", async () => {
    const imported = importGsm8k(readGsm8k("test.jsonl"), { split: "test" });
    if (!imported.ok) throw new Error(imported.error);
    expect((await saveDataset(db, imported.value)).ok).toBe(true);
    const runtime = { bindings: { ...secrets, EDGEGYM_DB: db } };
    const n = imported.value.tasks.length;
    let solved = 0;
    let toolErrors = 0;
    let truncated = 0;
    for (let i = 0; i < n; i++) {
      const ep = await playExpert(evalGsm8k, runtime, "test", i);
      if (ep.reward === 1) solved++;
      toolErrors += ep.toolErrors;
      if (ep.truncated) truncated++;
    }
    console.info(
      `calculator-gsm8k expert on test.jsonl: ${solved}/${n} = ${((100 * solved) / n).toFixed(2)}%`,
    );
    expect(n).toBe(1319);
    expect(solved / n).toBeGreaterThanOrEqual(0.99);
    expect({ toolErrors, truncated }).toEqual({ toolErrors: 0, truncated: 0 });
  });

  it("scores 1 on every procedural task tried: 2,000 train indices and the whole test split", async () => {
    const runtime = { bindings: secrets };
    const failures: string[] = [];
    const tried = { train: 2000, test: PROCEDURAL_SPLITS.test };
    for (const [split, count] of Object.entries(tried)) {
      for (let i = 0; i < count; i++) {
        const ep = await playExpert(evalProcedural, runtime, split, i);
        if (ep.reward !== 1 || ep.toolErrors > 0) failures.push(`${split}/${i}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe("GSM8K annotations under the calculator's evaluator", () => {
  it("evaluates every annotation of train and test to its annotated value", () => {
    let total = 0;
    const failed: string[] = [];
    const disagree: string[] = [];
    let nonNumeric = 0;
    for (const file of ["train.jsonl", "test.jsonl"]) {
      for (const line of readGsm8k(file).split("\n")) {
        if (line.trim() === "") continue;
        const { answer } = JSON.parse(line) as { answer: string };
        for (const m of answer.matchAll(/<<([^<>]*)=([^<>=]*)>>/g)) {
          total++;
          const [, expr = "", annotated = ""] = m;
          const r = evaluate(expr);
          if (!r.ok) failed.push(`${expr}: ${r.error}`);
          // A few annotations give a non-number after "=" (e.g. <<3/4=3/4>>); nothing to compare then.
          else if (!/^-?[\d.]+$/.test(annotated.replace(/[$,\s]/g, ""))) nonNumeric++;
          else if (!sameNumber(r.value, Number(annotated.replace(/[$,\s]/g, "")))) disagree.push(m[0]);
        }
      }
    }
    console.info(
      `GSM8K annotations: ${total} total, ${failed.length} fail, ${disagree.length} disagree, ${nonNumeric} non-numeric`,
    );
    expect(total).toBeGreaterThan(20_000);
    expect(failed).toEqual([]);
    expect(disagree).toEqual([]);
  });
});
