import { copyFile, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { resultsTable } from "../results/table.js";
import { type JobState, loadState } from "./plan.js";
import { comparableRecipe, listRecipes, loadRecipe, type Recipe } from "./recipe.js";
import { adoptStages, readSourceRun } from "./reuse.js";

/** A calculator-ppo run folder written when PPO was spelled "gae" (tests/fixtures/run-folders/README.md). */
const OLD_RUN = resolve(import.meta.dirname, "../../tests/fixtures/run-folders/calculator-ppo-gae");

async function recipe(name: string): Promise<Recipe> {
  const loaded = await loadRecipe(name);
  if (!loaded.ok) throw new Error(loaded.error);
  return loaded.value.recipe;
}

describe("recipes that name their method", () => {
  it("resolve to the fields they spelled out before the registry", async () => {
    const names = await listRecipes();
    expect(names.filter((n) => n.endsWith("-steppo")).length).toBeGreaterThanOrEqual(6);
    for (const name of names) {
      const rl = (await recipe(name)).rl;
      // Before: "algorithm": "steppo", "policyLoss": "gspo", "clipLow": 0.003, "clipHigh": 0.004,
      // "gamma": 1, "lambda": 1.
      if (name.endsWith("-steppo"))
        expect(rl).toMatchObject({
          algorithm: "steppo",
          policyLoss: "gspo",
          clipLow: 0.003,
          clipHigh: 0.004,
          gamma: 1,
          lambda: 1,
        });
      // Before: "algorithm": "gae", "gamma": 1, "lambda": 0.95, and the GRPO parent's PPO clip.
      if (name.endsWith("-ppo"))
        expect(rl).toMatchObject({
          algorithm: "ppo",
          policyLoss: "ppo",
          clipLow: 0.2,
          clipHigh: 0.28,
          gamma: 1,
          lambda: 0.95,
        });
      if (name.endsWith("-grpo")) expect(rl).toMatchObject({ algorithm: "grpo", policyLoss: "ppo" });
    }
  });
});

describe('a run folder from before the registry ("gae")', () => {
  it("is the same training as today's calculator-ppo recipe", async () => {
    const source = await readSourceRun(OLD_RUN);
    if (!source.ok) throw new Error(source.error);
    expect(source.value.recipe.rl.algorithm).toBe("ppo");
    // Its rl.model holds every shape field (configs kept them all then); compared as run folders are.
    expect(comparableRecipe(source.value.recipe).rl).toEqual(
      comparableRecipe(await recipe("calculator-ppo")).rl,
    );
  });

  it("--reuse adopts all of its stages", async () => {
    const current = await recipe("calculator-ppo");
    const source = await readSourceRun(OLD_RUN);
    if (!source.ok) throw new Error(source.error);
    const state: JobState = { recipe: "calculator-ppo", resolved: current, segments: [] };
    expect(adoptStages(state, current, source.value)).toEqual([
      "sft",
      "eval sft",
      "rl segments 1–6",
      "eval rl",
    ]);
  });

  it("resumes in its own folder under today's recipe", async () => {
    const dir = await mkdtemp(join(tmpdir(), "edgegym-old-run-"));
    await copyFile(join(OLD_RUN, "state.json"), join(dir, "state.json"));
    const state = await loadState(dir, "calculator-ppo", await recipe("calculator-ppo"), false);
    if (!state.ok) throw new Error(state.error);
    expect(state.value.segments).toHaveLength(6);
    expect(state.value.evalRl?.runId).toBe("run_rl");
  });

  it("fills the results table's PPO row", async () => {
    const source = await readSourceRun(OLD_RUN);
    if (!source.ok) throw new Error(source.error);
    const rows = resultsTable([source.value], []).split("\n");
    const ppo = rows.find((r) => r.startsWith("| SFT+PPO |")) ?? "";
    // Calculator is the first column: the RL cell's success rate 0.300 over n = 1000.
    expect(ppo.split(" | ")[1]).toContain("0.300");
    // "gae" is read as PPO, so no other method has a row.
    expect(rows.filter((r) => r.startsWith("| SFT+"))).toEqual([ppo]);
  });
});
