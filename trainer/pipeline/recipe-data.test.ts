import { spawnSync } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parseRecipe } from "./recipe.js";
import { importRecipeData } from "./recipe-data.js";

const ROOT = resolve(import.meta.dirname, "../..");

const recipe = (data: { kind: string; path: string }[]) => {
  const parsed = parseRecipe({ description: "d", env: "edgegym/calculator-gsm8k@1.0.0", data });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
};

describe("a recipe's data", () => {
  it("is imported into the local D1 folder the hub will serve", async () => {
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
