import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type JobState, loadState, nextStage, saveState, segmentSizes } from "./plan.js";
import { parseRecipe } from "./recipe.js";

const parsed = parseRecipe({
  description: "d",
  env: "edgegym/calculator@1.0.0",
  rl: { iterations: 12 },
  segment: 5,
});
if (!parsed.ok) throw new Error(parsed.error);
const recipe = parsed.value;
const agg = { n: 10, verified: 10, meanReturn: 0.5, successRate: 0.5, stderr: 0.16, meanSteps: 2 };

describe("the main job's plan", () => {
  it("splits RL into segments: 12 iterations by 5 → 5, 5, 2", () => {
    expect(segmentSizes(12, 5)).toEqual([5, 5, 2]);
    expect(segmentSizes(10, 5)).toEqual([5, 5]);
    expect(segmentSizes(3, 5)).toEqual([3]);
  });

  it("walks sft → each segment from the previous checkpoint → eval sft → eval rl → done", () => {
    const state: JobState = { recipe: "r", resolved: recipe, segments: [] };
    expect(nextStage(state, recipe, "/run")).toEqual({ kind: "sft", out: "/run/sft" });
    state.sft = { checkpoint: "/run/sft/checkpoints/final", seconds: 1 };
    expect(nextStage(state, recipe, "/run")).toEqual({
      kind: "rl",
      segment: 1,
      iterations: 5,
      init: "/run/sft/checkpoints/final",
      out: "/run/rl/segment-1",
    });
    state.segments.push({ dir: "/run/rl/segment-1", iterations: 5, seconds: 1 });
    state.segments.push({ dir: "/run/rl/segment-2", iterations: 5, seconds: 1 });
    expect(nextStage(state, recipe, "/run")).toEqual({
      kind: "rl",
      segment: 3,
      iterations: 2,
      init: "/run/rl/segment-2/checkpoints/final",
      out: "/run/rl/segment-3",
    });
    state.segments.push({ dir: "/run/rl/segment-3", iterations: 2, seconds: 1 });
    expect(nextStage(state, recipe, "/run")).toEqual({
      kind: "eval",
      which: "sft",
      checkpoint: "/run/sft/checkpoints/final",
    });
    state.evalSft = { runId: "a", model: "m", checkpoint: "c", aggregate: agg, seconds: 1 };
    expect(nextStage(state, recipe, "/run")).toEqual({
      kind: "eval",
      which: "rl",
      checkpoint: "/run/rl/segment-3/checkpoints/final",
    });
    state.evalRl = { runId: "b", model: "m2", checkpoint: "c2", aggregate: agg, seconds: 1 };
    expect(nextStage(state, recipe, "/run")).toEqual({ kind: "done" });
  });

  it("resumes from state.json, refuses a folder begun with another recipe, and --fresh starts over", async () => {
    const dir = await mkdtemp(join(tmpdir(), "edgegym-plan-"));
    const blank = await loadState(dir, "r", recipe, false);
    expect(blank.ok && blank.value.sft).toBeUndefined();
    await saveState(dir, {
      recipe: "r",
      resolved: recipe,
      sft: { checkpoint: "x", seconds: 3 },
      segments: [{ dir: "y", iterations: 5, seconds: 2 }],
    });
    const resumed = await loadState(dir, "r", recipe, false);
    if (!resumed.ok) throw new Error(resumed.error);
    expect(nextStage(resumed.value, recipe, dir)).toMatchObject({
      kind: "rl",
      segment: 2,
      init: "y/checkpoints/final",
    });

    const other = parseRecipe({ description: "d", env: "edgegym/calculator@1.0.0", rl: { iterations: 13 } });
    if (!other.ok) throw new Error(other.error);
    const refused = await loadState(dir, "r", other.value, false);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error).toContain("--fresh");
    const fresh = await loadState(dir, "r", other.value, true);
    expect(fresh.ok && fresh.value.segments).toEqual([]);

    await writeFile(join(dir, "state.json"), JSON.stringify({ nope: 1 }));
    const bad = await loadState(dir, "r", recipe, false);
    expect(bad.ok).toBe(false);
  });
});
