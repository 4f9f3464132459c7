import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { parseEnvRef } from "../../shared/env-ref.js";
import { firstTasks } from "../eval/play-tasks.js";
import { readCurve } from "../pipeline/curve.js";
import { taskEnvSpec } from "../pipeline/curve-stage.js";
import { type CurveSeries, curveSpec, type SftLevel } from "../report/curve-plot.js";
import { renderReport } from "../report/report.js";
import { distinctTasks, type TaskClusters, TRAIN_CHECKED, taskClusters } from "./distinct-tasks.js";
import { evalSetting, type Group } from "./pool.js";
import { methodLabel } from "./table.js";

/**
 * Per evaluation setting of the env's groups: how many distinct tasks the n test indices are, and how
 * many of those also occur among the first train tasks (from the env played in-process). Each
 * setting's clusters go into `keys`: the env's `taskCluster` when it declares one, else the tasks.
 */
export async function tasksLine(onEnv: readonly Group[], keys: Map<string, TaskClusters>): Promise<string> {
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
    const indices = firstTasks(count);
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
 * One plot per env from its runs' curve.json, written to `<out's folder>/results/`: success against
 * RL iteration, a line per run (colour = method, dash = seed), the SFT level (the curves' iteration 0)
 * as a rule. Returns the markdown linking it, or undefined when no run of the env has a curve.
 */
export async function plotCurves(
  env: string,
  onEnv: readonly Group[],
  out: string,
): Promise<string | undefined> {
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
  const plotDir = join(dirname(out), "results");
  await mkdir(plotDir, { recursive: true });
  await writeFile(join(plotDir, `${name}.svg`), svg);
  await writeFile(join(plotDir, `${name}.png`), png);
  const link = relative(dirname(out), join(plotDir, `${name}.png`));
  return `Learning curves (${series.length} runs): [${name}.svg](${relative(dirname(out), join(plotDir, `${name}.svg`))})\n\n![${env} learning curves](${link})`;
}
