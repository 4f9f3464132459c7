import { describe, expect, it } from "vitest";
import { evaluate } from "./evaluator.js";
import { PROCEDURAL_SPLITS, proceduralTask } from "./tasks.js";

const questions = (split: string, n: number) => Array.from({ length: n }, (_, i) => proceduralTask(split, i));

describe("procedural calculator tasks", () => {
  it("are deterministic by split and index, and differ between splits and indices", () => {
    expect(proceduralTask("train", 17)).toEqual(proceduralTask("train", 17));
    expect(proceduralTask("test", 17)).toEqual(proceduralTask("test", 17));
    expect(proceduralTask("train", 17)).not.toEqual(proceduralTask("train", 18));
    expect(proceduralTask("train", 17).question).not.toBe(proceduralTask("test", 17).question);
  });

  it("keeps train and test disjoint: no test question is among the first 20,000 train questions", () => {
    const train = new Set(questions("train", 20_000).map((t) => t.question));
    const test = questions("test", PROCEDURAL_SPLITS.test);
    expect(test.filter((t) => train.has(t.question))).toEqual([]);
    // Variety: most of the 20,000 train questions are distinct.
    expect(train.size).toBeGreaterThan(18_000);
  });

  it("carry expressions that evaluate to the answer, with 2 to 4 operations and short questions", () => {
    for (const t of [...questions("train", 3000), ...questions("test", 1000)]) {
      const [call] = t.calls;
      expect(t.calls).toHaveLength(1);
      const r = evaluate(call ?? "");
      expect(r.ok && r.value).toBe(t.answer);
      const ops = (call ?? "").match(/[-+*/]/g)?.length ?? 0;
      expect(ops, call).toBeGreaterThanOrEqual(2);
      expect(ops, call).toBeLessThanOrEqual(4);
      expect(t.question.length).toBeLessThanOrEqual(90);
    }
  });

  it("come from several templates", () => {
    // A template's shape: the question with its numbers, names and items blanked out.
    const shape = (q: string) =>
      q
        .replace(/\d+/g, "#")
        .replace(/^[A-Z][a-z]+ /, "N ")
        .replace(/\b[a-z]+s\b/g, "X");
    const shapes = new Set(questions("train", 2000).map((t) => shape(t.question)));
    expect(shapes.size).toBeGreaterThanOrEqual(7);
  });
});
