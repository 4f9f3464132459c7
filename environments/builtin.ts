import { calculator, calculatorGsm8k, calculatorLevels } from "./calculator/index.js";
import { code, codeGsm8k, codeLevels } from "./code/index.js";
import type { Environment } from "./kit/index.js";
import { lookup } from "./lookup/index.js";
import { search, searchHotpotqa, searchLevels, searchMusique } from "./search/index.js";
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

export function findBuiltin(name: string): Environment | undefined {
  return builtinEnvironments.find((e) => e.name === name);
}
