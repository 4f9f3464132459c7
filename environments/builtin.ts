import { importGsm8k } from "./calculator/gsm8k.js";
import { calculator, calculatorGsm8k, calculatorLevels } from "./calculator/index.js";
import { code, codeGsm8k, codeLevels } from "./code/index.js";
import type { Importer } from "./data/importers.js";
import type { Environment } from "./kit/index.js";
import { lookup } from "./lookup/index.js";
import { importHotpotqa, importHotpotqaHf, importMusique } from "./search/importers.js";
import { search, searchHotpotqa, searchLevels, searchMusique } from "./search/index.js";
import {
  importWebshopAnnotations,
  importWebshopHumanInstructions,
  importWebshopProducts,
} from "./webshop/importers.js";
import { webshop, webshopLevels, webshopReal, webshopRealHuman } from "./webshop/index.js";

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
  // The easier levels of the procedural envs (`<name>-l<k>`; the top level is the env's own name).
  ...calculatorLevels,
  ...codeLevels,
  ...searchLevels,
  ...webshopLevels,
];

/** Every `npm run data -- import <kind>`: one line per dataset kind, each importer from its env. */
export const builtinImporters: Readonly<Record<string, Importer>> = {
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
