import { describe, expect, it } from "vitest";
import { aggregate } from "./eval-aggregate.js";

describe("aggregate", () => {
  it("counts missing tasks as failures at the minimum return", () => {
    const a = aggregate(
      [
        { return: 1, finalReward: 1, steps: 3 },
        { return: 0.5, finalReward: 0, steps: 5 },
        null,
        { return: 1.5, finalReward: 1, steps: 4 },
      ],
      -1,
    );
    // r = [1, 0.5, -1, 1.5]; mean = 2 / 4 = 0.5
    // Σ(r − mean)² = 0.25 + 0 + 2.25 + 1 = 3.5; std = sqrt(3.5 / 3); stderr = std / sqrt(4) = std / 2
    expect(a.n).toBe(4);
    expect(a.verified).toBe(3);
    expect(a.meanReturn).toBeCloseTo(0.5, 12);
    expect(a.stderr).toBeCloseTo(Math.sqrt(3.5 / 3) / 2, 12);
    // Successes: tasks 0 and 3 (positive final reward) of 4.
    expect(a.successRate).toBe(0.5);
    // Steps over verified episodes only: (3 + 5 + 4) / 3 = 4.
    expect(a.meanSteps).toBe(4);
  });

  it("counts the receipt's success claim, and a positive final reward only for receipts without one", () => {
    const a = aggregate(
      [
        // Cut at the step limit right after a paid process step: final reward 0.25, success false.
        { return: 0.5, finalReward: 0.25, steps: 6, success: false },
        // An env whose success is stricter than a positive reward.
        { return: 0.6, finalReward: 0.6, steps: 3, success: false },
        { return: 1, finalReward: 1, steps: 2, success: true },
        // An old receipt: no claim, final reward 1 > 0 counts.
        { return: 1, finalReward: 1, steps: 2 },
      ],
      0,
    );
    // Successes: tasks 2 and 3 of 4 (finalReward > 0 alone would count all 4).
    expect(a.successRate).toBe(2 / 4);
  });

  it("handles a single task and an empty run", () => {
    expect(aggregate([{ return: 2, finalReward: 1, steps: 1 }], 0)).toEqual({
      n: 1,
      verified: 1,
      meanReturn: 2,
      successRate: 1,
      stderr: 0,
      meanSteps: 1,
    });
    expect(aggregate([null, null], 0)).toMatchObject({
      n: 2,
      verified: 0,
      meanReturn: 0,
      successRate: 0,
      meanSteps: null,
    });
    expect(aggregate([], 0).n).toBe(0);
  });
});
