import { describe, expect, it } from "vitest";
import { collectDemos } from "../rollout/demos.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import { connectEnv } from "../train/session.js";
import { sftRows } from "../train/sft-rows.js";
import { listRecipes, loadRecipe } from "./recipe.js";

/** Envs with built-in tasks, played in-process; the GSM8K recipe's env needs its dataset imported. */
const PROCEDURAL = ["calculator", "search", "code", "webshop"];

describe("recipes leave the expert room", () => {
  it("the expert's episodes fit every stage's maxSteps and the context, its actions maxNewTokens", async () => {
    const tokenizer = new ByteTokenizer();
    let checked = 0;
    for (const name of await listRecipes()) {
      const loaded = await loadRecipe(name);
      if (!loaded.ok) throw new Error(loaded.error);
      const { recipe } = loaded.value;
      const env = (recipe.trainEnv ?? recipe.env).split("/")[1]?.split("@")[0] ?? "";
      if (!PROCEDURAL.includes(env)) continue;
      const connected = await connectEnv(`local:${env}`, 8);
      if (!connected.ok) throw new Error(connected.error);
      const demos = await collectDemos(connected.value.client, tokenizer, {
        split: "train",
        tasks: Array.from({ length: 12 }, (_, i) => i),
        maxSteps: recipe.sft.maxSteps,
        concurrency: 8,
        renderTools: recipe.sft.renderTools,
      });
      await connected.value.client.close();
      expect(
        demos.filter((d) => !d.success).map((d) => d.task),
        `${name}: unsolved in sft.maxSteps`,
      ).toEqual([]);
      const longestEpisode = Math.max(...demos.map((d) => d.steps.length));
      expect(longestEpisode, `${name}: rl.maxSteps`).toBeLessThanOrEqual(recipe.rl.maxSteps);
      expect(longestEpisode, `${name}: eval.maxSteps`).toBeLessThanOrEqual(recipe.eval.maxSteps);
      const longestAction = Math.max(...demos.flatMap((d) => d.steps.map((s) => s.responseIds.length)));
      expect(longestAction, `${name}: rl.maxNewTokens`).toBeLessThanOrEqual(recipe.rl.maxNewTokens);
      expect(longestAction, `${name}: eval.maxNewTokens`).toBeLessThanOrEqual(recipe.eval.maxNewTokens);
      const longestRow = Math.max(...sftRows(demos).map((r) => r.tokens.length - 1));
      const context = recipe.sft.model.contextLength ?? 0;
      expect(longestRow, `${name}: sft.model.contextLength`).toBeLessThanOrEqual(context);
      checked++;
    }
    // Every recipe but the GSM8K one (dataset-backed).
    expect(checked).toBe((await listRecipes()).length - 1);
  }, 120_000);
});
