import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DATA_ORIGINS, datasetOfPath, SHARED_DATA_DIR } from "../../environments/data/data-origins.js";
import { DEFAULT_RECIPE, listRecipes, loadRecipe, parseRecipe } from "./recipe.js";

const ENVS = ["calculator", "search", "code", "webshop"] as const;

describe("recipes", () => {
  it("every recipes/*.json parses through the trainer's typed configs", async () => {
    const names = await listRecipes();
    expect(names.length).toBeGreaterThanOrEqual(8);
    for (const name of names) {
      const loaded = await loadRecipe(name);
      if (!loaded.ok) throw new Error(loaded.error);
      expect(loaded.value.recipe.env).toMatch(/^edgegym\/[a-z0-9-]+@\d+\.\d+\.\d+$/);
      // Its data files are ones whose source `npm start` can name when they are absent (a clone has
      // no ../shared beside it): a file of a known dataset under ../shared/data.
      for (const d of loaded.value.recipe.data) {
        expect(d.path.startsWith(`${SHARED_DATA_DIR}/`)).toBe(true);
        const dataset = datasetOfPath(d.path) ?? "?";
        expect(DATA_ORIGINS[dataset]?.files).toContain(d.path.split("/").at(-1));
      }
      // The file name says the env and the method: <env>-<algo>.json.
      expect(name.startsWith(loaded.value.recipe.env.split("/")[1]?.split("@")[0] ?? "?")).toBe(true);
    }
  });

  it("each of the four envs has GRPO and a value-based method (PPO or StepPO)", async () => {
    const names = await listRecipes();
    for (const env of ENVS) {
      const algos = await Promise.all(
        names
          .filter((n) => n.startsWith(`${env}-`))
          .map(async (n) => {
            const r = await loadRecipe(n);
            return r.ok ? r.value.recipe.rl.algorithm : "invalid";
          }),
      );
      expect(algos).toContain("grpo");
      expect(algos.some((a) => a === "ppo" || a === "steppo")).toBe(true);
    }
  });

  it("the default recipe trains on the hub's calculator at level 1", async () => {
    const loaded = await loadRecipe(DEFAULT_RECIPE);
    if (!loaded.ok) throw new Error(loaded.error);
    expect(loaded.value.recipe.env).toBe("edgegym/calculator-l1@1.0.0");
    expect(loaded.value.recipe.rl.algorithm).toBe("grpo");
  });

  it("a path works as well as a name; unknown names list the known ones", async () => {
    const dir = await mkdtemp(join(tmpdir(), "edgegym-recipe-"));
    const file = join(dir, "mini.json");
    await writeFile(file, JSON.stringify({ description: "d", env: "edgegym/calculator@1.0.0" }));
    const byPath = await loadRecipe(file);
    if (!byPath.ok) throw new Error(byPath.error);
    expect(byPath.value.name).toBe("mini");
    // Unset stages take the trainer's defaults.
    expect(byPath.value.recipe.rl.groupSize).toBe(8);
    expect(byPath.value.recipe.sft.episodes).toBe(256);

    const missing = await loadRecipe("nope");
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.error).toContain(`known: `);
    if (!missing.ok) expect(missing.error).toContain(DEFAULT_RECIPE);
  });

  it("rejects unknown fields, bad env refs, bad values and non-JSON", async () => {
    const base = { description: "d", env: "edgegym/calculator@1.0.0" };
    const typo = parseRecipe({ ...base, rl: { iteratons: 3 } });
    expect(typo.ok).toBe(false);
    if (!typo.ok) expect(typo.error).toContain("iteratons");
    const env = parseRecipe({ ...base, env: "calculator" });
    expect(env.ok).toBe(false);
    const algo = parseRecipe({ ...base, rl: { algorithm: "dpo" } });
    expect(algo.ok).toBe(false);
    if (!algo.ok) expect(algo.error).toContain("rl.algorithm");
    const dir = await mkdtemp(join(tmpdir(), "edgegym-recipe-"));
    await writeFile(join(dir, "no-base.json"), JSON.stringify({ ...base, base: "recipes/checkpoints/none" }));
    const noBase = await loadRecipe(join(dir, "no-base.json"));
    expect(noBase.ok).toBe(false);
    if (!noBase.ok) expect(noBase.error).toContain("base checkpoint recipes/checkpoints/none not found");
    await writeFile(join(dir, "broken.json"), "{");
    const broken = await loadRecipe(join(dir, "broken.json"));
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.error).toContain("is not JSON");
  });

  it("extends: a recipe is its parent with its own fields laid over, object by object", async () => {
    const dir = await mkdtemp(join(tmpdir(), "edgegym-recipe-"));
    const put = (name: string, json: unknown) => writeFile(join(dir, `${name}.json`), JSON.stringify(json));
    await put("env-grpo", {
      description: "parent",
      env: "edgegym/calculator@1.0.0",
      sft: { episodes: 12, model: { dModel: 32, contextLength: 256 } },
      rl: { algorithm: "grpo", iterations: 7, lr: 0.001 },
      data: [{ kind: "gsm8k", path: "a.jsonl" }],
    });
    await put("env-rloo", { extends: "env-grpo", description: "child", rl: { algorithm: "rloo" } });
    await put("env-deep", { extends: "env-rloo", sft: { model: { dModel: 48 } }, data: [] });
    const child = await loadRecipe("env-rloo", dir);
    if (!child.ok) throw new Error(child.error);
    expect(child.value.recipe.description).toBe("child");
    // rl merges field by field: the algorithm is the child's, iterations and lr the parent's.
    expect(child.value.recipe.rl).toMatchObject({ algorithm: "rloo", iterations: 7, lr: 0.001 });
    expect(child.value.recipe.sft.episodes).toBe(12);
    const deep = await loadRecipe("env-deep", dir);
    if (!deep.ok) throw new Error(deep.error);
    // Two levels: the model merges (dModel 48 over 32, contextLength kept); an array replaces.
    expect(deep.value.recipe.sft.model).toMatchObject({ dModel: 48, contextLength: 256 });
    expect(deep.value.recipe.data).toEqual([]);
    expect(deep.value.recipe.description).toBe("child");

    await put("loop-a", { extends: "loop-b" });
    await put("loop-b", { extends: "loop-a" });
    const loop = await loadRecipe("loop-a", dir);
    expect(loop.ok ? "" : loop.error).toContain("a cycle");
    await put("orphan", { extends: "nowhere" });
    const orphan = await loadRecipe("orphan", dir);
    expect(orphan.ok ? "" : orphan.error).toContain('no recipe "nowhere" (extended by');
    await put("numeric", { extends: 3 });
    const numeric = await loadRecipe("numeric", dir);
    expect(numeric.ok ? "" : numeric.error).toContain("extends: expected a recipe name");
  });
});
