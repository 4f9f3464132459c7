import { resolve } from "node:path";
import { runImport } from "../../environments/data/import-command.js";
import { DEFAULT_LOCAL_DB } from "../../environments/data/local-db.js";
import { err, ok, type Result } from "../../shared/result.js";
import { baseDir, type Recipe } from "./recipe.js";

/**
 * Imports the recipe's datasets into the local D1 that the hub will serve (wrangler's default folder,
 * or `persistTo`). Importing a file again rewrites its split with the same tasks, so a resumed run
 * sees what the first one saw.
 */
export async function importRecipeData(
  recipe: Recipe,
  persistTo: string | undefined,
  log: (line: string) => void,
): Promise<Result<void>> {
  for (const { kind, path } of recipe.data) {
    const imported = await runImport({
      kind,
      path: resolve(baseDir(), path),
      db: DEFAULT_LOCAL_DB,
      d1: "local",
      ...(persistTo === undefined ? {} : { persistTo }),
    });
    if (!imported.ok) return err(`importing the recipe's ${kind} data from ${path}: ${imported.error}`);
    const counts = Object.entries(imported.value.counts).map(([split, n]) => `${n} ${split}`);
    log(`data: ${imported.value.dataset} ${counts.join(", ")} tasks imported into the local D1`);
  }
  return ok(undefined);
}
