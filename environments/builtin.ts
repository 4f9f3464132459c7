import { importAlfworld } from "./alfworld/import-games.js";
import { alfworld, alfworldImported, alfworldLevels } from "./alfworld/index.js";
import { importGsm8k } from "./calculator/gsm8k.js";
import { calculator, calculatorGsm8k, calculatorLevels } from "./calculator/index.js";
import { code, codeGsm8k, codeLevels } from "./code/index.js";
import type { Importer } from "./data/importers.js";
import type { Environment } from "./kit/index.js";
import { lookup } from "./lookup/index.js";
import { importHotpotqa, importHotpotqaHf, importMusique } from "./search/importers.js";
import { search, searchHotpotqa, searchL1SharedTest, searchLevels, searchMusique } from "./search/index.js";
import {
  importWebshopAnnotations,
  importWebshopHumanInstructions,
  importWebshopProducts,
} from "./webshop/importers.js";
import {
  webshop,
  webshopL1Catalog300,
  webshopLevels,
  webshopQueryWorded,
  webshopReal,
  webshopRealHuman,
} from "./webshop/index.js";

/** Every environment that ships with edgegym, served at `/envs/<name>` by every host. */
export const builtinEnvironments: readonly Environment[] = [
  calculator,
  calculatorGsm8k,
  code,
  codeGsm8k,
  webshop,
  webshopReal,
  webshopRealHuman,
  search,
  searchHotpotqa,
  searchMusique,
  lookup,
  alfworld,
  alfworldImported,
  // The easier levels of the procedural envs (`<name>-l<k>`; the top level is the env's own name).
  ...calculatorLevels,
  ...codeLevels,
  ...searchLevels,
  ...webshopLevels,
  ...alfworldLevels,
];

/** Every `npm run data -- import <kind>`: one line per dataset kind, each importer from its env. */
export const builtinImporters: Readonly<Record<string, Importer>> = {
  alfworld: importAlfworld,
  gsm8k: importGsm8k,
  hotpotqa: importHotpotqa,
  "hotpotqa-hf": importHotpotqaHf,
  musique: importMusique,
  webshop: importWebshopProducts,
  "webshop-goals": importWebshopAnnotations,
  "webshop-human-goals": importWebshopHumanInstructions,
};

export function findBuiltin(name: string): Environment | undefined {
  return builtinEnvironments.find((e) => e.name === name);
}

/**
 * Earlier versions of built-in envs whose tasks changed, kept in code (not served by the hosts) so that
 * runs recorded against them can still be grouped by task and replayed in process.
 */
const archivedEnvironments: readonly Environment[] = [
  webshopL1Catalog300,
  ...webshopQueryWorded,
  searchL1SharedTest,
];

/** The built-in env `name` at `version`: today's, or an archived one at that version. */
export function findBuiltinAt(name: string, version: string): Environment | undefined {
  const today = findBuiltin(name);
  if (today?.version === version) return today;
  return archivedEnvironments.find((e) => e.name === name && e.version === version);
}

/**
 * The built-in env, today's or archived, whose tasks and first observations are those of `name` at
 * `version` (its own version, or one it lists in `sameTasksAs`).
 */
export function findBuiltinTasksOf(name: string, version: string): Environment | undefined {
  return [findBuiltin(name), ...archivedEnvironments.filter((e) => e.name === name)].find(
    (e) => e !== undefined && (e.version === version || e.definition.sameTasksAs?.includes(version) === true),
  );
}
