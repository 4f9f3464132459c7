import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parseRecipe } from "./recipe.js";
import { importRecipeData, missingRecipeData, recipeDataPath } from "./recipe-data.js";

const ROOT = resolve(import.meta.dirname, "../..");

const recipe = (data: { kind: string; path: string }[]) => {
  const parsed = parseRecipe({ description: "d", env: "edgegym/calculator-gsm8k@1.0.0", data });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
};

describe("a recipe's data", () => {
  // Two wrangler processes (the import and the read-back) take 45 s on two loaded cores: the limit only
  // catches a hang, it is not a speed bound.
  it("is imported into the local D1 folder the hub will serve", { timeout: 180_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), "edgegym-recipe-data-"));
    const line = (q: string, a: string) => JSON.stringify({ question: q, answer: a });
    await writeFile(
      join(dir, "train.jsonl"),
      [
        line("Tom has 2 apples and buys 3. How many?", "2+3 = <<2+3=5>>5\n#### 5"),
        line("Half of 8?", "8/2 = <<8/2=4>>4\n#### 4"),
      ].join("\n"),
    );
    const lines: string[] = [];
    const done = await importRecipeData(
      recipe([{ kind: "gsm8k", path: join(dir, "train.jsonl") }]),
      join(dir, "d1"),
      (l) => lines.push(l),
    );
    expect(done).toEqual({ ok: true, value: undefined });
    expect(lines).toEqual(["data: gsm8k 2 train tasks imported into the local D1"]);
    // Read back from that D1 folder, as the hub's worker will.
    const query = spawnSync(
      process.execPath,
      [
        join(ROOT, "node_modules/wrangler/bin/wrangler.js"),
        ...["d1", "execute", "edgegym", "--local", "--persist-to", join(dir, "d1"), "--json"],
        ...[
          "--command",
          "SELECT split, count(*) AS n FROM dataset_tasks WHERE dataset = 'gsm8k' GROUP BY split",
        ],
      ],
      { cwd: ROOT, encoding: "utf8" },
    );
    expect(JSON.parse(query.stdout)[0].results).toEqual([{ split: "train", n: 2 }]);
  });

  it("a missing file or an unknown kind stops the run with a clear error", async () => {
    const missing = await importRecipeData(
      recipe([{ kind: "gsm8k", path: "no/such/train.jsonl" }]),
      undefined,
      () => {},
    );
    expect(missing.ok).toBe(false);
    if (!missing.ok)
      expect(missing.error).toContain(
        "importing the recipe's gsm8k data from no/such/train.jsonl: cannot read",
      );
    const kind = await importRecipeData(recipe([{ kind: "gsm9k", path: "x.jsonl" }]), undefined, () => {});
    expect(kind.ok).toBe(false);
    if (!kind.ok) expect(kind.error).toContain('unknown dataset kind "gsm9k"');
  });
});

describe("a recipe whose data is not beside the repository", () => {
  const gsm8k = recipe([
    { kind: "gsm8k", path: "../shared/data/gsm8k/train.jsonl" },
    { kind: "gsm8k", path: "../shared/data/gsm8k/test.jsonl" },
  ]);

  it("is told which files to put where, and where they come from", async () => {
    const empty = await mkdtemp(join(tmpdir(), "edgegym-no-data-"));
    const line = missingRecipeData(gsm8k, "calculator-gsm8k-grpo", empty);
    expect(line).toBe(
      `recipe calculator-gsm8k-grpo needs data that is not here: ${join(empty, "gsm8k/train.jsonl")}, ` +
        `${join(empty, "gsm8k/test.jsonl")}; put train.jsonl and test.jsonl into ${empty}/gsm8k/ ` +
        "(from grade_school_math/data/ of the GitHub repository openai/grade-school-math (MIT)); " +
        "or name the folder that holds them with --data-dir <dir>",
    );
    expect(line).not.toContain("\n");
    // Without --data-dir the paths are named as the recipe writes them (a file no data folder has).
    const absent = recipe([{ kind: "gsm8k", path: "../shared/data/gsm8k/no-such-split.jsonl" }]);
    expect(missingRecipeData(absent, "r")).toMatch(
      /^recipe r needs data that is not here: \.\.\/shared\/data\/gsm8k\/no-such-split\.jsonl; put no-such-split\.jsonl into \.\.\/shared\/data\/gsm8k\/ \(from /,
    );
  });

  it("--data-dir moves ../shared/data paths to the folder named, and then finds them", async () => {
    const dir = await mkdtemp(join(tmpdir(), "edgegym-data-dir-"));
    expect(recipeDataPath("../shared/data/gsm8k/train.jsonl", dir)).toBe(join(dir, "gsm8k/train.jsonl"));
    // Other paths stay relative to the repository, with or without --data-dir.
    expect(recipeDataPath("recipes/x.jsonl", dir)).toBe(join(ROOT, "recipes/x.jsonl"));
    await mkdir(join(dir, "gsm8k"));
    await writeFile(join(dir, "gsm8k/train.jsonl"), "");
    // Only test.jsonl is absent now, so only it is named.
    expect(missingRecipeData(gsm8k, "r", dir)).toContain(`put test.jsonl into ${dir}/gsm8k/ (from`);
    await writeFile(join(dir, "gsm8k/test.jsonl"), "");
    expect(missingRecipeData(gsm8k, "r", dir)).toBeUndefined();
  });

  it("npm start exits 2 with that one line before starting anything", async () => {
    const empty = await mkdtemp(join(tmpdir(), "edgegym-no-data-"));
    const run = spawnSync(
      process.execPath,
      [
        join(ROOT, "node_modules/tsx/dist/cli.mjs"),
        join(ROOT, "trainer/pipeline/start.ts"),
        ...["--recipe", "calculator-gsm8k-grpo", "--data-dir", empty, "--port", "1"],
      ],
      { cwd: ROOT, encoding: "utf8" },
    );
    expect(run.status).toBe(2);
    const lines = run.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^edgegym: recipe calculator-gsm8k-grpo needs data that is not here: .*train\.jsonl/,
    );
    expect(lines[0]).toContain("openai/grade-school-math");
    expect(run.stdout).toBe("");
  });
});
