import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { parseEnvRef } from "../../shared/env-ref.js";
import { scriptArgs } from "../../shared/script-args.js";
import { connectEnv } from "../client/connect-env.js";
import { type CurveSeries, curveSpec, type SftLevel } from "../report/curve-plot.js";
import { renderReport } from "../report/report.js";
import { collectDemos } from "../rollout/demos.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import { readCurve } from "./curve.js";
import { taskEnvSpec } from "./curve-stage.js";
import { distinctTasks, type TaskClusters, TRAIN_CHECKED, taskClusters } from "./distinct-tasks.js";
import { evalSetting, type Group, poolSeeds, withPaired } from "./results-pool.js";
import {
  COLUMNS,
  type EnvNote,
  type ExpertCell,
  methodLabel,
  pooledTables,
  resultsTable,
  timingsTable,
} from "./results-table.js";
import { loggedModelSize, type ModelSize, modelSize, readRuns } from "./run-folders.js";

/**
 * `npm run results [-- --runs runs --n 50 --out docs/results.md --notes <file.md>]`: docs/results.md
 * from the run folders `npm start -- --recipe <name>` left under `--runs` (each `state.json` holds
 * the hub evaluation aggregates and the stage timings), plus the expert measured now on each env
 * in-process. Runs of one env and method from one SFT policy that differ only in the RL seed are
 * pooled; each env with curve.json files gets a plot in `<out's folder>/results/`. Nothing is filled
 * in that a run did not record: a missing run is "not run".
 */
const USAGE = `Usage: npm run results -- [options]

Writes docs/results.md from the run folders npm start left, plus the expert measured now on each env.

Options:
  --runs <dir>     a folder of run folders; repeat for several (default runs)
  --n <count>      train tasks the expert plays per env (default 50)
  --out <file>     the markdown written; plots go to results/ beside it (default docs/results.md)
  --notes <file>   a markdown file whose text replaces the built-in notes
  -h, --help       this text`;
const args = scriptArgs("results", USAGE, {
  runs: { type: "string", multiple: true, default: ["runs"] },
  n: { type: "string", default: "50" },
  out: { type: "string", default: "docs/results.md" },
  /** A markdown file whose text replaces the built-in notes (which describe the runs before issue 15). */
  notes: { type: "string" },
});
const { values } = args;
const n = args.number("n");

/** The expert on tasks 0..n−1 of the train split (it refuses the test split), in-process. */
async function expert(env: string): Promise<ExpertCell | string> {
  const name = env.split("/")[1] ?? "";
  const connected = await connectEnv(`local:${name}`, 16);
  if (!connected.ok) return connected.error;
  const { client, manifest } = connected.value;
  try {
    const size = manifest.splits.train ?? 0;
    const tasks = Array.from({ length: Math.min(n, size) }, (_, i) => i);
    if (tasks.length === 0) return `${name} has no train tasks`;
    const demos = await collectDemos(client, new ByteTokenizer(), {
      split: "train",
      tasks,
      maxSteps: manifest.limits.maxSteps,
      concurrency: 16,
      renderTools: false,
    });
    const scored = demos.filter((d) => d.failure === undefined);
    if (scored.length === 0) return `${name}: ${demos[0]?.failure?.detail ?? "no episodes"}`;
    const returns = scored.map((d) => d.return);
    const mean = returns.reduce((a, b) => a + b, 0) / returns.length;
    const ss = returns.reduce((a, r) => a + (r - mean) ** 2, 0);
    const stderr = returns.length > 1 ? Math.sqrt(ss / (returns.length - 1)) / Math.sqrt(returns.length) : 0;
    return {
      env,
      split: "train",
      success: scored.filter((d) => d.success).length / scored.length,
      reward: mean,
      stderr,
      n: scored.length,
      source: "expert",
    };
  } finally {
    await client.close();
  }
}

const { runs, skipped: unread } = await readRuns(values.runs);
for (const line of unread) console.error(`results: skipped ${line}`);
const here = (path: string) => (path.startsWith(resolve(".")) ? relative(resolve("."), path) : path);
// SFT checkpoints named relative to the repository in the table (and so in the model map's keys).
const pooled = poolSeeds(runs).map((g) => ({ ...g, sftCheckpoint: here(g.sftCheckpoint) }));
const models = new Map<string, ModelSize>();
for (const g of pooled) {
  const first = g.runs[0];
  const size =
    (await modelSize(g.sftCheckpoint)) ??
    (first === undefined ? undefined : await loggedModelSize(first.dir));
  if (size) models.set(g.sftCheckpoint, size);
}
const notes = new Map<string, EnvNote>();
const plotDir = join(dirname(values.out), "results");
/** Per evaluation setting (`evalSetting`), each test index's cluster, for the paired comparison. */
const taskClusterKeys = new Map<string, TaskClusters>();
for (const env of [...new Set(pooled.map((g) => g.env))]) {
  const onEnv = pooled.filter((g) => g.env === env);
  const lines = [await tasksLine(onEnv, taskClusterKeys)];
  const plot = await plotCurves(env, onEnv);
  if (plot) lines.push(plot);
  notes.set(env, { lines });
}
const groups = pooled.map((g) => withPaired(g, taskClusterKeys));
const experts: ExpertCell[] = [];
const skipped: string[] = [];
for (const col of COLUMNS) {
  const t0 = performance.now();
  const x = await expert(col.env);
  if (typeof x === "string") skipped.push(`- expert on ${col.env}: not run (${x})`);
  else {
    experts.push(x);
    process.stderr.write(
      `results: expert ${col.env} ${x.success.toFixed(3)} (n=${x.n}) in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
    );
  }
}
const root = resolve(".");
const notesText = values.notes === undefined ? undefined : (await readFile(values.notes, "utf8")).trim();
const doc = `# Results

Generated by \`npm run results\` from the run folders of \`npm start -- --recipe <name>\` (${runs.length} found) on
this machine; each figure is a hub evaluation run of the recipe's policy on the env's test split (tasks
0..n−1, greedy), aggregated by the hub from verified receipts. Cells read **success rate · mean reward ±
standard error of the mean reward (n)**, with "k verified" when only k of the n episodes ended with a
receipt. "not run" means no run folder holds that figure. The expert row is
the env's own expert played in-process on train tasks 0..n−1 (the expert refuses the test split).

## Seeds pooled, per env and method

Runs of one env and method that start from one SFT policy (the same SFT checkpoint, shared with
\`npm start -- --reuse <run folder>\`) and differ only in the RL seed form one row. **SFT** is the SFT
policy's hub evaluation (success over n test tasks). **SFT+RL, seeds pooled** is the success over every
finished seed's test episodes (n is the sum over seeds; each seed plays the same tasks 0..n−1) ± its
standard error sqrt(p(1−p)/n). **RL − SFT** is the difference ± the standard error of the difference,
sqrt(p1(1−p1)/n1 + p2(1−p2)/n2), and the verdict says whether it is at least 2 of them. **Paired by
task** compares the same tasks one by one, which is sharper when RL keeps most of what SFT solved:
d_i is the seeds' mean success on test task i minus SFT's, and its mean d̄ has the cluster-robust
standard error sqrt(C/(C−1)·Σ_c S_c²)/n, S_c the sum of d_i − d̄ over the indices showing the policy
task c (a repeated task is one greedy episode played again, so it counts once), over C distinct tasks;
where the env says what its tasks share (webshop: a goal's product, whose pages every goal on it shows),
c is that instead, and the column says over how many of those. It needs every
evaluation's task-by-task record (\`outcomes\` in state.json, written since 2026-11-27; a task cut without a
receipt is a failure there, as in the hub's count); "no task-by-task record" otherwise. Every seed is
listed on its own line with its run folder, unfinished ones with the stage they stopped in. The model
size is read from the SFT checkpoint's config.json, or from the model config the run's job.log printed
when that folder is gone (a run's record in docs/results/runs/ keeps its log, not its checkpoints). Learning curves (when the recipe had \`curve\`) are
greedy in-process plays of each saved checkpoint, not hub evaluations.

${groups.length > 0 ? pooledTables(groups, models, notes) : "No run folder has an SFT stage yet."}

## Each run

${resultsTable(runs, experts)}

${skipped.length > 0 ? `${skipped.join("\n")}\n` : ""}
## Notes

${
  notesText ??
  `- Every run is \`npm start -- --recipe <name>\` on this machine's two CPU cores, shared with other jobs
  (the stage timings below vary with that load); the tfjs backend was wasm, the first that loaded. Each
  run folder's \`state.json\` holds the recipe exactly as it ran.
- Where RL does not beat SFT the cell says so. The calculator recipes continue the committed base
  checkpoint \`recipes/checkpoints/calculator-sft\` (5.4M tokens of expert SFT, 49 min on these cores;
  its README has the commands) with 256 fresh demos, then run 30 RL iterations of 8 tasks × 8 rollouts
  (lr 5e-4, PPO/GSPO clip, 2 mini-batches of merged episode rows an iteration, 4 of step rows for
  StepPO) with a KL term (β 0.1) to the SFT policy and
  negative advantages weighted 0.25, and evaluate on all 1,000 test tasks. SFT solves about one test
  task in four. Without the KL term and the weighting, GRPO made this policy worse (0.257 → 0.203 on
  300 test tasks in 20 iterations): most samples fail by one miscopied digit, and pushing those down
  hard spread probability over tokens no sample supports until the call and answer formats broke.
  [docs/trainer.md](trainer.md#rl-on-a-small-sft-policy) has the settings tried and their figures. With
  both, GRPO gains on SFT, but by about one standard error: the same setting scored 0.302 in an
  in-process run that drew other training tasks, so the gain depends on the draw. A second
  \`calculator-grpo\` run on later code (SFT steps and prefill in passes; the second GRPO line)
  matched the first's metrics for 18 iterations, then drifted and ended at 0.240, below its SFT's
  0.245: on this policy a gain of 0.02 is within the spread between runs. PPO and StepPO
  start with an untrained value head. Earlier runs (before 2026-11-22) had a sampler bug that let
  finished responses run on past their stop id; every figure here is from after the fix.
- Two \`npm start\` runs at once must not share the local hub's D1 folder: with the default one, the
  second hub's writes failed with SQLITE_BUSY. Here the StepPO and PPO runs shared it: StepPO's SFT
  evaluation lost 85 of 1,000 episodes and was run again on its own folder, and PPO's RL evaluation
  failed and was resumed. The later runs had their own \`--persist-to\`.
- The GRPO run started while the trainer config still had an \`adamEps\` field (Adam's ε), which was
  later dropped because it did not help. Its resolved recipe held the default, 1e-8, which is also
  the ε the optimizer uses without the field. That one key was deleted from its \`state.json\` so that
  the current recipe schema reads the run.
- A run that stopped shows the stage and the reason in the last column of the runs table.
- Search, code, webshop, GSM8K and the HotpotQA sample: fresh 2-layer d_model 64 models, SFT on 24 to
  256 expert demos for 2 or 3 epochs, then 10 RL iterations of 4 tasks × 4 to 8 rollouts, evaluated
  on 50 to 200 test tasks (the runs table has each stage's time). None of these SFT policies solves a
  test task, so RL gets no reward to learn from, and those cells say "does not beat SFT". The
  calculator row needed a 49-minute SFT base (5.4M tokens) before SFT solved one task in four; these
  envs' rows are 2 to 6 times longer, and no such base exists for them yet.
- The methods on one env start from one SFT policy. The PPO, RLOO and REINFORCE++ runs outside
  calculator, and StepPO on GSM8K and webshop, adopted the GRPO run's SFT stage and its evaluation
  (\`npm start -- --recipe <env>-<method> --reuse <the GRPO run folder>\`); the runs table says
  "adopted from" for those stages. A HotpotQA run trains exactly as the procedural search run of
  the same method (same recipe body and seeds, \`trainEnv\` search), so all but the GRPO one (run
  in full before \`--reuse\` existed) adopted that run's SFT and RL stages and only evaluated both
  policies on the sample.
- "k verified": episodes that the trainer cut (at the recipe's \`maxSteps\`, or when
  the context was full) end without a receipt, and the hub counts them as failures. HotpotQA:
  the sample is 53 dev questions and no train split, so \`search-hotpotqa-grpo\` trains on procedural
  search (\`trainEnv\`) and is evaluated on all 53. Five Wikipedia passages put the context at 1.9k to
  2.4k tokens after the first search. That is more than \`contextLength\` 2048 leaves for a response,
  so every episode is cut before it answers.
- Webshop runs use webshop 1.1.0, which keeps only the last turn in the context (rows of 0.5k to
  1.7k tokens). With 1.0.0's growing context, SFT failed on wasm with 7k-token rows. The SFT
  evaluation of \`webshop-grpo\` first failed in generation ("table index is out of bounds", 32
  prompts of 1.7k tokens prefilled at once); generation now prefills in passes, and the run resumed.
- Recipes before 2026-11-22 noon cut the expert's own actions short. Code's \`maxNewTokens\` was 96
  against programs of up to 274 tokens, webshop's was 48 against 101, and search's was 64 against 80.
  The code runs made under them (0.000) are not in this table. \`trainer/pipeline/recipe-room.test.ts\`
  now plays every procedural recipe's expert against its limits.
- The GSM8K expert cell needs the dataset in the local SQLite file (\`npm run data -- import gsm8k
  ../shared/data/gsm8k/train.jsonl\`). The HotpotQA sample has no train split, so its expert cell
  is empty: the expert refuses the test split.`
}

## Runs

Wall time of each stage in seconds, as the run recorded it, and the backend that ran.

${timingsTable(runs.map((r) => ({ ...r, dir: r.dir.startsWith(root) ? relative(root, r.dir) : r.dir })))}
`;
await mkdir(dirname(values.out), { recursive: true });
await writeFile(values.out, doc);

/**
 * Per evaluation setting of the env's groups: how many distinct tasks the n test indices are, and how
 * many of those also occur among the first train tasks (from the env played in-process). Each
 * setting's clusters go into `keys`: the env's `taskCluster` when it declares one, else the tasks.
 */
async function tasksLine(onEnv: readonly Group[], keys: Map<string, TaskClusters>): Promise<string> {
  const lines: string[] = [];
  const settings = new Map(onEnv.flatMap((g) => g.runs.map((r) => [evalSetting(r), r.recipe])));
  for (const [setting, recipe] of settings) {
    const { split, n: count } = recipe.eval;
    const spec = taskEnvSpec(recipe);
    const head = `Evaluated on ${split} tasks 0..${count - 1} (n = ${count} per policy)`;
    if (!spec.startsWith("local:")) {
      lines.push(`${head}; distinct tasks not counted (${spec} is not a built-in env at this version here).`);
      continue;
    }
    const indices = Array.from({ length: count }, (_, i) => i);
    const d = await distinctTasks(spec, split, indices, TRAIN_CHECKED);
    if (!d.ok) {
      lines.push(`${head}; distinct tasks not counted (${d.error}).`);
      continue;
    }
    const { distinct, inTrain } = d.value;
    const clusters = await taskClusters(spec, split, indices);
    const own = clusters.ok ? clusters.value : undefined;
    keys.set(setting, own ?? { unit: "tasks", keys: d.value.keys });
    const train = inTrain
      ? ` ${inTrain.count} of the ${distinct} also occur among train tasks 0..${inTrain.checked - 1}.`
      : "";
    const clustered = own
      ? ` They fall on ${new Set(own.keys).size} ${own.unit}, and the paired comparison clusters by those: tasks on one of them share what the policy meets, so their outcomes move together.`
      : clusters.ok
        ? ""
        : ` Paired by task: what the tasks share is not known (${clusters.error}).`;
    lines.push(
      `${head}: ${distinct} distinct tasks (distinct first observations of \`${spec}\`)${distinct < count ? ", so the n episodes repeat tasks" : ""}.${train}${clustered}`,
    );
  }
  return lines.join("\n\n");
}

/**
 * One plot per env from its runs' curve.json: success against RL iteration, a line per run (colour
 * = method, dash = seed), the SFT level (the curves' iteration 0) as a rule. Returns the markdown
 * line linking it, or undefined when no run of the env has a curve.
 */
async function plotCurves(env: string, onEnv: readonly Group[]): Promise<string | undefined> {
  const series: CurveSeries[] = [];
  const sft: SftLevel[] = [];
  const sizes = new Set<string>();
  for (const g of onEnv) {
    for (const r of g.runs) {
      const curve = await readCurve(r.dir);
      if (!curve || curve.points.length === 0) continue;
      sizes.add(`${curve.split} tasks 0..${curve.n - 1}`);
      series.push({ method: methodLabel(g.method), seed: r.recipe.rl.seed, points: curve.points });
      const zero = curve.points.find((p) => p.iteration === 0);
      const label = `SFT${new Set(onEnv.map((x) => x.sftCheckpoint)).size > 1 ? ` (${g.sftCheckpoint.split("/").slice(-4, -2).join("/")})` : ""}`;
      if (zero && !sft.some((l) => l.label === label)) sft.push({ label, success: zero.success });
    }
  }
  if (series.length === 0) return undefined;
  const ref = parseEnvRef(env);
  const name = ref ? `${ref.name}-${ref.version}` : env.replaceAll("/", "-");
  const subtitle = `greedy success on ${[...sizes].join(", ")}, in-process; grey: the SFT policy on the same tasks`;
  const { svg, png } = await renderReport(curveSpec(series, sft, env, subtitle));
  await mkdir(plotDir, { recursive: true });
  await writeFile(join(plotDir, `${name}.svg`), svg);
  await writeFile(join(plotDir, `${name}.png`), png);
  const link = relative(dirname(values.out), join(plotDir, `${name}.png`));
  return `Learning curves (${series.length} runs): [${name}.svg](${relative(dirname(values.out), join(plotDir, `${name}.svg`))})\n\n![${env} learning curves](${link})`;
}
process.stderr.write(`results: wrote ${values.out} (${runs.length} runs)\n`);
