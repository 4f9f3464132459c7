import { describe, expect, it } from "vitest";
import { distinctTasks } from "./distinct-tasks.js";

describe("distinct tasks", () => {
  it("counts distinct first observations: one task index twice is one task", async () => {
    const d = await distinctTasks("local:calculator", "test", [0, 1, 0]);
    if (!d.ok) throw new Error(d.error);
    const { keys, ...count } = d.value;
    expect(count).toEqual({ distinct: 2, n: 3 });
    // A key per index, in order: indices 0 and 2 are the same task, 1 another.
    expect(keys).toHaveLength(3);
    expect(keys[2]).toBe(keys[0]);
    expect(keys[1]).not.toBe(keys[0]);
  });

  it("counts how many of them also occur among the first train tasks", async () => {
    // Train tasks 0 and 1 are among train tasks 0..2; task 5 is not.
    const d = await distinctTasks("local:calculator", "train", [0, 1, 5], 3);
    if (!d.ok) throw new Error(d.error);
    const { keys: _keys, ...count } = d.value;
    expect(count).toEqual({ distinct: 3, n: 3, inTrain: { checked: 3, count: 2 } });
  });

  it("says why when the env cannot be played", async () => {
    const d = await distinctTasks("local:no-such-env", "test", [0]);
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.error).toContain("no-such-env");
  });
});
