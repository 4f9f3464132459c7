import { calculatorLevels } from "../../environments/calculator/index.js";
import { codeLevels } from "../../environments/code/index.js";
import { searchLevels } from "../../environments/search/index.js";
import { webshopLevels } from "../../environments/webshop/index.js";
import { describeConformance } from "./index.js";
import { serveOnNode } from "./node-target.js";

// The easiest level of each procedural env passes the same edgegym/v1 suite as the env itself (no
// database: search and webshop search in memory, as `npm run envs` without a data file does).
for (const env of [calculatorLevels[0], codeLevels[0], searchLevels[0], webshopLevels[0]]) {
  if (env === undefined) throw new Error("every procedural env has a level 1");
  describeConformance(`${env.name} (level 1) on Node`, () => serveOnNode([env]));
}
