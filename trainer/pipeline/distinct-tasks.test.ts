import { describe, expect, it } from "vitest";
import { distinctTasks } from "./distinct-tasks.js";

describe("distinct tasks", () => {
  it("counts distinct first observations: one task index twice is one task", async () => {
    const d = await distinctTasks("local:calculator", "test", [0, 1, 0]);
    expect(d.ok && d.value).toEqual({ distinct: 2, n: 3 });
  });

  it("says why when the env cannot be played", async () => {
    const d = await distinctTasks("local:no-such-env", "test", [0]);
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.error).toContain("no-such-env");
  });
});
