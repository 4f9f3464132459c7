import { describe, expect, it } from "vitest";
import { evalOutcomes, pairedDifference } from "./paired.js";

const played = (...solved: boolean[]) => solved.map((success, index) => ({ task: { index }, success }));
const hub = (n: number, successes: number) => ({ n, verified: n, successRate: successes / n, rejected: 0 });

describe("an evaluation's outcomes, task by task", () => {
  it("records task i's success at position i, whatever order the episodes finished in", () => {
    const episodes = played(true, false, true).reverse();
    expect(evalOutcomes(episodes, hub(3, 2))).toEqual({ ok: true, value: "101" });
  });

  it("records a task without a verified receipt as the failure it was played as", () => {
    // Task 1 was cut by the step limit (no receipt, a failure for the hub); task 0 solved and verified.
    expect(evalOutcomes(played(true, false), { ...hub(2, 1), verified: 1 })).toEqual({
      ok: true,
      value: "10",
    });
  });

  it("records nothing that could differ from the hub's count", () => {
    // Task 1 has no verified receipt and was played as a success: the hub counted 1, 2 were played.
    expect(evalOutcomes(played(true, true), { ...hub(2, 1), verified: 1 })).toMatchObject({ ok: false });
    expect(evalOutcomes(played(true, true), { ...hub(2, 2), rejected: 1 })).toMatchObject({ ok: false });
    // Two episodes of task 0 and none of task 1.
    const twice = [...played(true), ...played(false)];
    expect(evalOutcomes(twice, hub(2, 1))).toEqual({
      ok: false,
      error: "task 0 played twice or out of range",
    });
    expect(evalOutcomes(played(true), hub(2, 1))).toEqual({ ok: false, error: "task 1 has no episode" });
    // Two successes played, one counted by the hub.
    expect(evalOutcomes(played(true, true), hub(2, 1))).toMatchObject({ ok: false });
  });
});

describe("RL against SFT, paired by task", () => {
  it("averages the seeds per task and clusters repeated tasks", () => {
    // Tasks 0 and 2 are one task ("a"). SFT q = 0 1 0 0; seeds 1 1 1 0 and 1 0 1 1.
    // d = (1+1)/2−0, (1+0)/2−1, (1+1)/2−0, (0+1)/2−0 = 1, −0.5, 1, 0.5; mean d̄ = 2/4 = 0.5.
    // d − d̄ = 0.5, −1, 0.5, 0; cluster sums a: 0.5+0.5 = 1, b: −1, c: 0, so C = 3 and Σ S² = 2.
    // se = sqrt(3/2 · 2) / 4 = sqrt(3)/4 = 0.4330127; k = 0.5/0.4330127 = 1.1547005, short of 2.
    const p = pairedDifference("0100", ["1110", "1011"], ["a", "b", "a", "c"]);
    expect(p?.d).toBeCloseTo(0.5, 12);
    expect(p?.se).toBeCloseTo(Math.sqrt(3) / 4, 12);
    expect(p?.k).toBeCloseTo(1.1547005, 6);
    expect(p?.beats).toBe(false);
    expect(p?.clusters).toBe(3);
    // Without keys each index is a task: Σ (d − d̄)² = 0.25 + 1 + 0.25 + 0 = 1.5, C = 4,
    // se = sqrt(4/3 · 1.5) / 4 = sqrt(2)/4 = 0.3535534.
    const unclustered = pairedDifference("0100", ["1110", "1011"]);
    expect(unclustered?.se).toBeCloseTo(Math.sqrt(2) / 4, 12);
    expect(unclustered?.clusters).toBe(4);
  });

  it("beats SFT at 2 standard errors of the paired difference", () => {
    // d = 1, 1, 1, 0; d̄ = 0.75; d − d̄ = 0.25, 0.25, 0.25, −0.75; Σ = 3 · 0.0625 + 0.5625 = 0.75.
    // se = sqrt(4/3 · 0.75) / 4 = 1/4; k = 0.75/0.25 = 3.
    const p = pairedDifference("0000", ["1110"]);
    expect(p?.se).toBeCloseTo(0.25, 12);
    expect(p?.k).toBeCloseTo(3, 12);
    expect(p?.beats).toBe(true);
  });

  it("gives nothing when an evaluation has no record or the tasks differ", () => {
    expect(pairedDifference(undefined, ["1"])).toBeUndefined();
    expect(pairedDifference("0101", ["0101", undefined])).toBeUndefined();
    expect(pairedDifference("0101", ["010"])).toBeUndefined();
    expect(pairedDifference("0101", [])).toBeUndefined();
    // Keys for fewer tasks than were played, and one task played four times.
    expect(pairedDifference("0101", ["1111"], ["a", "b"])).toBeUndefined();
    expect(pairedDifference("0000", ["1111"], ["a", "a", "a", "a"])).toBeUndefined();
  });
});
