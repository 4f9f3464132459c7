import { describe, expect, it } from "vitest";
import type { StepRecord } from "../rollout/types.js";
import { stepRecord, trajectory } from "../testing/rollout-fixtures.js";
import { padSftRows, sftRows } from "./rows.js";

const step = (promptIds: number[], responseIds: number[], i: number) =>
  stepRecord({ step: i, promptIds, responseIds, responseLogprobs: [] });
const episode = (steps: StepRecord[]) => trajectory(steps);

describe("sftRows", () => {
  it("folds an append-mode episode into one row that learns every response and no observation", () => {
    // Step 0: prompt [1,2], response [3,4]. Observation [5]. Step 1: prompt [1,2,3,4,5], response [6].
    const rows = sftRows([episode([step([1, 2], [3, 4], 0), step([1, 2, 3, 4, 5], [6], 1)])]);
    expect(rows).toEqual([{ tokens: [1, 2, 3, 4, 5, 6], learn: [false, false, true, true, false, true] }]);
    // Next-token layout: T = 6 − 1 = 5; target t is tokens[t+1] = [2,3,4,5,6]; learned where learn[t+1].
    expect(padSftRows(rows, 0)).toEqual({
      ids: [[1, 2, 3, 4, 5]],
      targets: [[2, 3, 4, 5, 6]],
      mask: [[0, 1, 1, 0, 1]],
    });
  });

  it("starts a new row when the env replaced the context, and pads to the longest row only", () => {
    // Step 1's prompt [9,5] does not start with step 0's [1,2,3]: two rows.
    const rows = sftRows([episode([step([1, 2], [3], 0), step([9, 5], [6, 7], 1)])]);
    expect(rows.map((r) => r.tokens)).toEqual([
      [1, 2, 3],
      [9, 5, 6, 7],
    ]);
    // Widest row has 4 tokens → T = 3; the 3-token row gets one pad (0) in ids and targets.
    expect(padSftRows(rows, 0)).toEqual({
      ids: [
        [1, 2, 3],
        [9, 5, 6],
      ],
      targets: [
        [2, 3, 0],
        [5, 6, 7],
      ],
      mask: [
        [0, 1, 0],
        [0, 1, 1],
      ],
    });
  });

  it("learns only the steps in learnSteps and drops the rows that learn nothing", () => {
    // Replace mode: three steps, three rows; learnSteps [1] keeps step 1's row only.
    const replaced = episode([step([1], [2], 0), step([3], [4, 5], 1), step([6], [7], 2)]);
    expect(sftRows([replaced], [1])).toEqual([{ tokens: [3, 4, 5], learn: [false, true, true] }]);
    // Append mode: one row [1,2 | 3 | 4,5]; step 0's response (2) is context now, step 1's (4,5) learned.
    const appended = episode([step([1], [2], 0), step([1, 2, 3], [4, 5], 1)]);
    expect(sftRows([appended], [1])).toEqual([
      { tokens: [1, 2, 3, 4, 5], learn: [false, false, false, true, true] },
    ]);
    // A step index no episode reaches leaves no row.
    expect(sftRows([replaced, appended], [7])).toEqual([]);
  });
});
