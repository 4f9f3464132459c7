import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { findBuiltinAt } from "../../environments/builtin.js";
import { ok } from "../../shared/result.js";
import { connectEnv } from "../client/connect-env.js";
import { collectDemos } from "../rollout/demos.js";
import { sftRows } from "../sft/rows.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import { loadTokenizer } from "../tokenizer/load-tokenizer.js";
import { baseDir, listRecipes, loadRecipe } from "./recipe.js";

/** Envs with built-in tasks, played in-process; the GSM8K recipe's env needs its dataset imported. */
const PROCEDURAL = [
  "calculator",
  "calculator-l1",
  "search",
  "search-l1",
  "code",
  "code-l1",
  "webshop",
  "webshop-l1",
  "alfworld-l1",
];

describe("recipes leave the expert room", () => {
  it("the expert's episodes fit every stage's maxSteps and the context, its actions maxNewTokens", async () => {
    let checked = 0;
    // Recipes that differ only in the RL method play the same expert episodes.
    const played = new Map<string, Awaited<ReturnType<typeof collectDemos>>>();
    const names = await listRecipes();
    for (const name of names) {
      const loaded = await loadRecipe(name);
      if (!loaded.ok) throw new Error(loaded.error);
      const { recipe } = loaded.value;
      const [env = "", version = ""] = (recipe.trainEnv ?? recipe.env).split("/")[1]?.split("@") ?? [];
      if (!PROCEDURAL.includes(env)) continue;
      // The version the recipe pins where it is built in (today's or archived), else today's.
      const spec = findBuiltinAt(env, version) ? `local:${env}@${version}` : `local:${env}`;
      // Lengths in the tokens the recipe trains with: its base's tokenizer (bytes without a base).
      const tokenizer =
        recipe.base === undefined
          ? ok(new ByteTokenizer())
          : await loadTokenizer(resolve(baseDir(), recipe.base));
      if (!tokenizer.ok) throw new Error(tokenizer.error);
      const key = `${spec} ${recipe.sft.maxSteps} ${recipe.sft.renderTools} ${recipe.base}`;
      let demos = played.get(key);
      if (!demos) {
        const connected = await connectEnv(spec, 8);
        if (!connected.ok) throw new Error(connected.error);
        demos = await collectDemos(connected.value.client, tokenizer.value, {
          split: "train",
          tasks: Array.from({ length: 12 }, (_, i) => i),
          maxSteps: recipe.sft.maxSteps,
          concurrency: 8,
          renderTools: recipe.sft.renderTools,
        });
        await connected.value.client.close();
        played.set(key, demos);
      }
      // Every episode ends by itself; not every one is a success (webshop's expert shops from the pages
      // alone and sometimes buys a product scored below 1), but most are.
      expect(
        demos.filter((d) => d.truncated || d.failure !== undefined).map((d) => d.task),
        `${name}: cut in sft.maxSteps`,
      ).toEqual([]);
      expect(demos.filter((d) => d.success).length, `${name}: solved`).toBeGreaterThanOrEqual(8);
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
    // Every recipe but the GSM8K ones (dataset-backed).
    expect(checked).toBe(names.filter((n) => !n.startsWith("calculator-gsm8k-")).length);
  }, 120_000);
});
