import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { curveFile, curvePlan, readCurve, writeCurve } from "./curve.js";
import { loadState, saveState } from "./plan.js";
import { parseRecipe } from "./recipe.js";

describe("the learning curve's plan", () => {
  it("finds the checkpoint of every multiple of `every`, counting iterations across segments", () => {
    // 30 iterations in segments of 5, every 10: iterations 10, 20, 30 end segments 2, 4, 6.
    expect(curvePlan(30, 5, 10, 10)).toEqual({
      points: [
        { iteration: 10, segment: 2, name: "final" },
        { iteration: 20, segment: 4, name: "final" },
        { iteration: 30, segment: 6, name: "final" },
      ],
      missing: [],
    });
    // One segment of 30 saving every 5, every 10: iter-10 and iter-20 inside it, final at 30.
    expect(curvePlan(30, 30, 5, 10).points.map((p) => p.name)).toEqual(["iter-10", "iter-20", "final"]);
    // Segments of 20 saving every 10, every 10, 25 iterations → [20, 5]: 10 = iter-10 of segment 1,
    // 20 = its final; 25 (the last iteration, not a multiple) = segment 2's final.
    expect(curvePlan(25, 20, 10, 10).points).toEqual([
      { iteration: 10, segment: 1, name: "iter-10" },
      { iteration: 20, segment: 1, name: "final" },
      { iteration: 25, segment: 2, name: "final" },
    ]);
    // Segments of 5 saving every 2 (at local 2, 4), every 2: iteration 6 is segment 2's first: no checkpoint.
    expect(curvePlan(10, 5, 2, 2).missing).toEqual([6, 8]);
  });

  it("a recipe whose curve points would have no checkpoint is refused with the fix", () => {
    const base = { description: "d", env: "edgegym/calculator@1.0.0", rl: { iterations: 30 }, segment: 5 };
    const fine = parseRecipe({ ...base, curve: { every: 10, n: 200 } });
    expect(fine.ok && fine.value.curve).toEqual({ every: 10, n: 200, split: "test" });
    const bad = parseRecipe({ ...base, curve: { every: 3, n: 200 } });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toContain("curve.every");
    if (!bad.ok) expect(bad.error).toContain("RL iterations 3, 6, 9 will have no checkpoint");
    // Strict: a misspelt field is an error, not ignored.
    expect(parseRecipe({ ...base, curve: { every: 10, n: 200, spilt: "test" } }).ok).toBe(false);
  });

  it("adding a curve to a run folder's recipe resumes the folder; any other change does not", async () => {
    const a = parseRecipe({ description: "d", env: "edgegym/calculator@1.0.0", rl: { iterations: 10 } });
    const b = parseRecipe({
      description: "d",
      env: "edgegym/calculator@1.0.0",
      rl: { iterations: 10 },
      curve: { every: 5, n: 20 },
    });
    const c = parseRecipe({ description: "d", env: "edgegym/calculator@1.0.0", rl: { iterations: 11 } });
    if (!a.ok || !b.ok || !c.ok) throw new Error("recipes");
    const dir = await mkdtemp(join(tmpdir(), "edgegym-curve-plan-"));
    await saveState(dir, { recipe: "r", resolved: a.value, segments: [] });
    const resumed = await loadState(dir, "r", b.value, false);
    expect(resumed.ok && resumed.value.resolved).toEqual(b.value);
    expect((await loadState(dir, "r", c.value, false)).ok).toBe(false);
    // A folder begun before a field with a default existed (sft.workers) resumes too.
    const { workers: _, ...oldSft } = a.value.sft;
    await saveState(dir, { recipe: "r", resolved: { ...a.value, sft: oldSft }, segments: [] });
    expect((await loadState(dir, "r", b.value, false)).ok).toBe(true);
    // But not one whose stored value differs from today's (the same field set otherwise).
    await saveState(dir, {
      recipe: "r",
      resolved: { ...a.value, sft: { ...oldSft, workers: 2 } },
      segments: [],
    });
    expect((await loadState(dir, "r", b.value, false)).ok).toBe(false);
  });

  it("curve.json round-trips, and an unreadable one reads as none", async () => {
    const dir = await mkdtemp(join(tmpdir(), "edgegym-curve-file-"));
    expect(await readCurve(dir)).toBeUndefined();
    const curve = {
      env: "edgegym/calculator@1.0.0",
      split: "test",
      n: 4,
      every: 5,
      points: [{ iteration: 0, checkpoint: "c", success: 0.25, successes: 1, n: 4, failures: 0, seconds: 1 }],
      absent: [5],
    };
    await writeCurve(dir, curve);
    expect(await readCurve(dir)).toEqual(curve);
    await writeFile(curveFile(dir), "{ not json");
    expect(await readCurve(dir)).toBeUndefined();
  });
});
