import { calculator, calculatorGsm8k } from "./calculator/index.js";
import { code, codeGsm8k } from "./code/index.js";
import type { Environment } from "./kit/index.js";
import { lookup } from "./lookup/index.js";
import { search, searchHotpotqa, searchMusique } from "./search/index.js";
import { webshop, webshopReal, webshopRealHuman } from "./webshop/index.js";

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
];

export function findBuiltin(name: string): Environment | undefined {
  return builtinEnvironments.find((e) => e.name === name);
}
