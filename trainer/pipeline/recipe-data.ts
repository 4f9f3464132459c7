import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { datasetOfPath, howToGet, SHARED_DATA_DIR } from "../../environments/data/data-origins.js";
import { localDbPath } from "../../environments/data/local-db.js";
import { runImport } from "../../environments/node/import-command.js";
import { err, ok, type Result } from "../../shared/result.js";
import { baseDir, type Recipe } from "./recipe.js";

/**
 * Where a recipe's data file is read from. Paths under `../shared/data/` (the folder beside the
 * repository that a fresh clone lacks) move to `dataDir` when the user names one (`--data-dir`);
 * other paths are relative to the repository.
 */
export function recipeDataPath(path: string, dataDir?: string): string {
  const prefix = `${SHARED_DATA_DIR}/`;
  if (dataDir !== undefined && path.startsWith(prefix)) return resolve(dataDir, path.slice(prefix.length));
  return resolve(baseDir(), path);
}

/**
 * One line naming the recipe's data files that are absent, what to put where and where from, or
 * undefined when every file is there. Checked before anything starts, so a fresh clone without
 * `../shared` is told what to fetch instead of failing halfway.
 */
export function missingRecipeData(recipe: Recipe, name: string, dataDir?: string): string | undefined {
  const absent = recipe.data.filter((d) => !existsSync(recipeDataPath(d.path, dataDir)));
  if (absent.length === 0) return undefined;
  // As the recipe writes them, or where --data-dir moved them.
  const shown = absent.map((d) => (dataDir === undefined ? d.path : recipeDataPath(d.path, dataDir)));
  // Per dataset folder, the files it lacks and where they come from.
  const byDataset = new Map<string, string[]>();
  for (const d of absent) {
    const dataset = datasetOfPath(d.path) ?? "?";
    byDataset.set(dataset, [...(byDataset.get(dataset) ?? []), d.path.split("/").at(-1) ?? d.path]);
  }
  const folder = dataDir ?? SHARED_DATA_DIR;
  const how = [...byDataset].map(([dataset, files]) => howToGet(dataset, folder, files));
  return (
    `recipe ${name} needs data that is not here: ${shown.join(", ")}; ${how.join("; ")}; ` +
    "or name the folder that holds them with --data-dir <dir>"
  );
}

/**
 * Imports the recipe's datasets into the local D1 that the hub will serve (wrangler's default folder,
 * or `persistTo`). Importing a file again rewrites its split with the same tasks, so a resumed run
 * sees what the first one saw.
 */
export async function importRecipeData(
  recipe: Recipe,
  persistTo: string | undefined,
  log: (line: string) => void,
  dataDir?: string,
): Promise<Result<void>> {
  for (const { kind, path } of recipe.data) {
    const imported = await runImport({
      kind,
      path: recipeDataPath(path, dataDir),
      db: localDbPath(),
      d1: "local",
      ...(persistTo === undefined ? {} : { persistTo }),
    });
    if (!imported.ok) return err(`importing the recipe's ${kind} data from ${path}: ${imported.error}`);
    const counts = Object.entries(imported.value.counts).map(([split, n]) => `${n} ${split}`);
    log(`data: ${imported.value.dataset} ${counts.join(", ")} tasks imported into the local D1`);
  }
  return ok(undefined);
}
