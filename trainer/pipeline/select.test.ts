import { describe, expect, it } from "vitest";
import { type JobState, nextStage } from "./plan.js";
import { parseRecipe } from "./recipe.js";
import { selectedSegment } from "./select.js";

const recipeWith = (select: unknown) =>
  parseRecipe({
    description: "d",
    env: "edgegym/calculator@1.0.0",
    rl: { iterations: 10 },
    segment: 5,
    select,
  });

const score = (successes: number) => ({ success: successes / 100, successes, n: 100, failures: 0 });

describe("select: the RL checkpoint chosen on held-out train tasks", () => {
  it("refuses to select on the test split, and unknown keys", () => {
    const onTest = recipeWith({ split: "test", n: 300 });
    expect(onTest).toMatchObject({ ok: false, error: expect.stringContaining("must not be test") });
    expect(recipeWith({ split: "train", n: 300, peek: true }).ok).toBe(false);
    expect(recipeWith({ split: "train", n: 300 }).ok).toBe(true);
  });

  it("picks the best validated segment, the later on a tie, and the last without select", () => {
    const segments = [
      { dir: "a", validation: score(61) },
      { dir: "b", validation: score(66) },
      { dir: "c", validation: score(66) },
      { dir: "d", validation: score(60) },
    ];
    expect(selectedSegment(segments, { split: "train", n: 100 })).toBe(2);
    expect(selectedSegment(segments, undefined)).toBe(3);
  });

  it("validates each segment before the next one, then evaluates the chosen checkpoint", () => {
    const parsed = recipeWith({ split: "train", n: 100 });
    if (!parsed.ok) throw new Error(parsed.error);
    const recipe = parsed.value;
    const state: JobState = { recipe: "r", resolved: recipe, segments: [] };
    state.sft = { checkpoint: "/run/sft/checkpoints/final", seconds: 1 };
    state.segments.push({ dir: "/run/rl/segment-1", iterations: 5, seconds: 1 });
    expect(nextStage(state, recipe, "/run")).toEqual({
      kind: "validate",
      segment: 1,
      checkpoint: "/run/rl/segment-1/checkpoints/final",
    });
    (state.segments[0] as JobState["segments"][number]).validation = score(70);
    expect(nextStage(state, recipe, "/run")).toMatchObject({ kind: "rl", segment: 2 });
    state.segments.push({ dir: "/run/rl/segment-2", iterations: 5, seconds: 1, validation: score(64) });
    expect(nextStage(state, recipe, "/run")).toMatchObject({ kind: "eval", which: "sft" });
    const agg = { n: 10, verified: 10, meanReturn: 0.5, successRate: 0.5, stderr: 0.16, meanSteps: 2 };
    state.evalSft = { runId: "a", model: "m", checkpoint: "c", aggregate: agg, seconds: 1 };
    // Segment 1 scored 70/100 on the held-out train tasks, segment 2 only 64: the hub evaluates segment 1.
    expect(nextStage(state, recipe, "/run")).toEqual({
      kind: "eval",
      which: "rl",
      checkpoint: "/run/rl/segment-1/checkpoints/final",
    });
  });
});
