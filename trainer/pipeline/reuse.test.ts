import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { JobState } from "./plan.js";
import { parseRecipe, type Recipe } from "./recipe.js";
import { adoptStages, readSourceRun, type SourceRun } from "./reuse.js";

const recipeOf = (over: Record<string, unknown>): Recipe => {
  const r = parseRecipe({
    description: "d",
    env: "edgegym/search@1.0.0",
    sft: { episodes: 8 },
    rl: { algorithm: "grpo", iterations: 10 },
    segment: 5,
    ...over,
  });
  if (!r.ok) throw new Error(r.error);
  return r.value;
};
const agg = { n: 50, verified: 50, meanReturn: 0.1, successRate: 0.1, stderr: 0.04, meanSteps: 2 };
const evalDone = (runId: string, checkpoint: string) => ({
  runId,
  model: "m",
  checkpoint,
  aggregate: agg,
  seconds: 30,
});

/** A finished search GRPO run: SFT, two RL segments, both evaluations. */
const finished = (): SourceRun => {
  const recipe = recipeOf({});
  return {
    dir: "/runs/search-grpo",
    recipe,
    state: {
      recipe: "search-grpo",
      resolved: recipe,
      sft: { checkpoint: "/runs/search-grpo/sft/checkpoints/final", seconds: 200 },
      segments: [
        { dir: "/runs/search-grpo/rl/segment-1", iterations: 5, seconds: 90 },
        { dir: "/runs/search-grpo/rl/segment-2", iterations: 5, seconds: 95 },
      ],
      evalSft: evalDone("run_sft", "/runs/search-grpo/sft/checkpoints/final"),
      evalRl: evalDone("run_rl", "/runs/search-grpo/rl/segment-2/checkpoints/final"),
    },
  };
};
const blank = (recipe: Recipe): JobState => ({ recipe: "new", resolved: recipe, segments: [] });

describe("adopting another run's stages (npm start -- --reuse)", () => {
  it("another method on the same env adopts the SFT policy and its evaluation, not the RL", () => {
    const recipe = recipeOf({ rl: { algorithm: "rloo", iterations: 10 } });
    const state = blank(recipe);
    expect(adoptStages(state, recipe, finished())).toEqual(["sft", "eval sft"]);
    expect(state.sft).toEqual({ ...finished().state.sft, from: "/runs/search-grpo" });
    expect(state.evalSft?.runId).toBe("run_sft");
    expect(state.segments).toEqual([]);
    expect(state.evalRl).toBeUndefined();
  });

  it("the same training evaluated on another env adopts SFT and RL, and evaluates both anew", () => {
    const recipe = recipeOf({
      env: "edgegym/search-hotpotqa@1.0.0",
      trainEnv: "edgegym/search@1.0.0",
      // The evaluated env's dataset: procedural search trains without it.
      data: [{ kind: "hotpotqa", path: "sample.json" }],
    });
    const state = blank(recipe);
    expect(adoptStages(state, recipe, finished())).toEqual(["sft", "rl segments 1–2"]);
    expect(state.segments.map((s) => s.from)).toEqual(["/runs/search-grpo", "/runs/search-grpo"]);
    expect(state.evalSft).toBeUndefined();
    expect(state.evalRl).toBeUndefined();
  });

  it("a source stopped mid-RL gives its segments; the RL evaluation waits for the rest", () => {
    const source = finished();
    source.state.segments.pop();
    delete source.state.evalRl;
    const recipe = recipeOf({});
    const state = blank(recipe);
    expect(adoptStages(state, recipe, source)).toEqual(["sft", "eval sft", "rl segments 1–1"]);
    expect(state.evalRl).toBeUndefined();
  });

  it("adopts nothing when any SFT input differs, or when the run already has its own SFT", () => {
    for (const over of [
      { sft: { episodes: 9 } },
      { base: "recipes/checkpoints/calculator-sft" },
      { env: "edgegym/search-hotpotqa@1.0.0" },
      { data: [{ kind: "hotpotqa", path: "x.jsonl" }] },
    ]) {
      const recipe = recipeOf(over);
      const state = blank(recipe);
      expect(adoptStages(state, recipe, finished())).toEqual([]);
      expect(state.sft).toBeUndefined();
    }
    const recipe = recipeOf({});
    const own = { ...blank(recipe), sft: { checkpoint: "/mine", seconds: 1 } };
    expect(adoptStages(own, recipe, finished())).toEqual([]);
    expect(own.sft.checkpoint).toBe("/mine");
  });

  it("reads a run folder, and says why a folder is not one", async () => {
    const dir = await mkdtemp(join(tmpdir(), "edgegym-reuse-"));
    const missing = await readSourceRun(dir);
    expect(missing.ok ? "" : missing.error).toMatch(/no readable state\.json/);
    await writeFile(join(dir, "state.json"), JSON.stringify({ recipe: 3 }));
    const bad = await readSourceRun(dir);
    expect(bad.ok ? "" : bad.error).toMatch(/not a run state/);
    await writeFile(join(dir, "state.json"), JSON.stringify(finished().state));
    const read = await readSourceRun(dir);
    if (!read.ok) throw new Error(read.error);
    expect(read.value.dir).toBe(dir);
    expect(read.value.state.evalRl?.runId).toBe("run_rl");
  });
});
