import { describe, expect, it } from "vitest";
import { annotationCalls, importGsm8k } from "./gsm8k.js";

const line = (question: string, answer: string) => JSON.stringify({ question, answer });
const ducks = line(
  "Janet's ducks lay 16 eggs; she eats 3 and bakes with 4, selling the rest at $2. Dollars a day?",
  "She sells 16 - 3 - 4 = <<16-3-4=9>>9 eggs.\nShe makes 9 * 2 = $<<9*2=18>>18.\n#### 18",
);

describe("GSM8K import", () => {
  it("turns the <<expr=value>> annotations into calculator calls, in order", () => {
    expect(annotationCalls("a <<16-3-4=9>>9 then <<9*2=18>>18 and <<560//10=56>>56")).toEqual([
      "16-3-4",
      "9*2",
      "560//10",
    ]);
    expect(annotationCalls("no annotations\n#### 3")).toEqual([]);
  });

  it("parses each record into the question, the #### answer and the calls, skipping blank lines", () => {
    const text = `${ducks}\n\n${line("Q2", "It is -1,250.5 in total.\n#### -1,250.5")}\n`;
    expect(importGsm8k(text, { split: "test" })).toEqual({
      ok: true,
      value: {
        name: "gsm8k",
        tasks: [
          {
            split: "test",
            payload: { question: JSON.parse(ducks).question, answer: 18, calls: ["16-3-4", "9*2"] },
          },
          { split: "test", payload: { question: "Q2", answer: -1250.5, calls: [] } },
        ],
      },
    });
  });

  it("fails the whole file on a bad line, naming it", () => {
    expect(importGsm8k(`${ducks}\n{"question": "x"`, { split: "train" })).toEqual({
      ok: false,
      error: "line 2: not valid JSON",
    });
    expect(importGsm8k(`${ducks}\n${JSON.stringify({ question: "x" })}`, { split: "train" })).toEqual({
      ok: false,
      error: "line 2: expected {question, answer} strings",
    });
    expect(importGsm8k(line("x", "no final answer"), { split: "train" })).toEqual({
      ok: false,
      error: "line 1: the answer does not end in #### <number>",
    });
    expect(importGsm8k("\n\n", { split: "train" })).toEqual({ ok: false, error: "no GSM8K records found" });
    expect(importGsm8k(ducks, {}).ok).toBe(false);
  });
});
