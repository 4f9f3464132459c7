import { resolve } from "node:path";
import { scriptArgs } from "../../shared/script-args.js";
import { iterationProgress } from "../cli/progress.js";
import { DEFAULT_RECIPE, listRecipes, loadRecipe } from "./recipe.js";
import { importRecipeData, missingRecipeData } from "./recipe-data.js";

/**
 * `npm start [-- --recipe <name>] [--out <dir>] [--port <n>] [--persist-to <dir>] [--reuse <run dir>]
 * [--fresh] [--list]`: starts the local hub, runs the recipe (SFT, RL, hub evaluations of both) and
 * prints the table. `--reuse` adopts another run's stages whose inputs match, so methods compared on
 * one env start from one SFT policy.
 * Ctrl-C stops after the current iteration, keeps every finished stage, and the same command resumes.
 */
const USAGE = `Usage: npm start -- [options]

Starts the local hub, runs a recipe (SFT, RL, hub evaluations of both) and prints a before/after table.

Options:
  --recipe <name|file.json>  a recipe from recipes/ or a JSON file (default ${DEFAULT_RECIPE})
  --list                     print the recipes in recipes/
  --out <dir>                run folder (default runs/<recipe>)
  --port <n>                 local hub port (default 8787)
  --persist-to <dir>         wrangler's local state folder (D1, KV)
  --reuse <run dir>          adopt another run's stages whose inputs match
  --fresh                    start over instead of resuming the run folder
  --data-dir <dir>           folder holding the recipe's datasets (default ../shared/data)
  -h, --help                 this text

Ctrl-C stops after the current iteration; the same command resumes. See README.md.`;

const say = (line: string) => process.stderr.write(`edgegym: ${line}\n`);

const { values } = scriptArgs(
  "edgegym",
  USAGE,
  {
    recipe: { type: "string", default: DEFAULT_RECIPE },
    out: { type: "string" },
    port: { type: "string", default: "8787" },
    "persist-to": { type: "string" },
    reuse: { type: "string" },
    fresh: { type: "boolean", default: false },
    list: { type: "boolean", default: false },
    "data-dir": { type: "string" },
  },
  "npm start -- --help",
);

if (values.list) {
  for (const name of await listRecipes()) console.log(name);
  process.exit(0);
}
const loaded = await loadRecipe(values.recipe);
// A wrong recipe is the user's mistake too: one line and exit code 2, no stack trace.
if (!loaded.ok) {
  say(loaded.error);
  process.exit(2);
}
const { name, recipe } = loaded.value;
// Data beside the repository (../shared/data) that a fresh clone lacks: say what to fetch, before anything starts.
const absentData = missingRecipeData(recipe, name, values["data-dir"]);
if (absentData !== undefined) {
  say(absentData);
  process.exit(2);
}
const runDir = resolve(values.out ?? `runs/${name}`);
const t0 = performance.now();
say(`recipe ${name}: ${recipe.description}`);
// The pipeline (tfjs, wrangler) loads only now, so that --help and a mistake answer at once.
const { readSourceRun } = await import("./reuse.js");
const { startLocalHub } = await import("./local-hub.js");
const { runMainJob } = await import("./main-job.js");
const { beforeAfter, modelSize } = await import("./before-after.js");
const reuse = values.reuse === undefined ? undefined : await readSourceRun(values.reuse);
if (reuse && !reuse.ok) {
  say(reuse.error);
  process.exit(1);
}
const data = await importRecipeData(recipe, values["persist-to"], say, values["data-dir"]);
if (!data.ok) {
  say(data.error);
  process.exit(1);
}
say(`starting the local hub on port ${values.port} (wrangler dev, local D1, built-in envs published)…`);
const hub = await startLocalHub({
  port: Number(values.port),
  ...(values["persist-to"] ? { persistTo: values["persist-to"] } : {}),
  log: (line) => {
    if (/^hub: |^🌀|ERROR|Error/.test(line)) say(line);
  },
});
if (!hub.ok) {
  say(hub.error);
  process.exit(1);
}
say(`hub ready at ${hub.value.url} after ${((performance.now() - t0) / 1000).toFixed(0)} s`);

const controller = new AbortController();
let interrupts = 0;
process.on("SIGINT", () => {
  interrupts++;
  if (interrupts === 1) {
    say("Ctrl-C: stopping after the current iteration (again to stop now)…");
    controller.abort();
    return;
  }
  void hub.value.stop().then(() => process.exit(130));
});

const bars = new Map<string, ReturnType<typeof iterationProgress>>();
const progress = (stage: string, i: number, total: number, m: Record<string, number>) => {
  let bar = bars.get(stage);
  if (!bar) {
    for (const b of bars.values()) b.stop();
    bar = iterationProgress(stage);
    bars.set(stage, bar);
  }
  bar.update(i, total, m);
};

const result = await runMainJob({
  name,
  recipe,
  runDir,
  hub: hub.value,
  fresh: values.fresh,
  ...(reuse ? { reuse: reuse.value } : {}),
  signal: controller.signal,
  log: say,
  progress,
});
for (const b of bars.values()) b.stop();
await hub.value.stop();
const minutes = ((performance.now() - t0) / 60_000).toFixed(1);
if (!result.ok) {
  say(`failed after ${minutes} min: ${result.error}`);
  say(`finished stages are kept in ${runDir}/state.json; run the same command to resume`);
  process.exit(1);
}
if (result.value.interrupted) {
  say(`interrupted after ${minutes} min; finished stages are kept in ${runDir}/state.json`);
  say(`resume with: npm start -- --recipe ${values.recipe}${values.out ? ` --out ${values.out}` : ""}`);
  process.exit(130);
}
const { state } = result.value;
const model = await modelSize(state.evalRl?.checkpoint ?? state.sft?.checkpoint);
console.log(`\n${name} (${recipe.env}, backend ${state.backend ?? "?"}, model ${model}, ${minutes} min)\n`);
console.log(beforeAfter(state, runDir, hub.value.url, recipe.env, recipe.eval.split));
