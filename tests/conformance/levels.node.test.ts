import { calculatorLevels } from "../../environments/calculator/index.js";
import { codeLevels } from "../../environments/code/index.js";
import { searchLevels } from "../../environments/search/index.js";
import { webshopLevels } from "../../environments/webshop/index.js";
import { describeConformance } from "./index.js";
import { serveOnNode } from "./node-target.js";

// The easiest level of each procedural env passes the same edgegym/v1 suite as the env itself (no
// database: search and webshop search in memory, as `npm run envs` without a data file does).
// webshop-l1's expert may first click `next >`, which a call sent twice does not repeat; a search does.
const SEARCH = { name: "env_step", arguments: { command: "search[running shoes]" } };
for (const env of [calculatorLevels[0], codeLevels[0], searchLevels[0], webshopLevels[0]]) {
  if (env === undefined) throw new Error("every procedural env has a level 1");
  describeConformance(`${env.name} (level 1) on Node`, async () => ({
    ...(await serveOnNode([env])),
    ...(env === webshopLevels[0] ? { toolCall: SEARCH } : {}),
  }));
}
