import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ok, type Result } from "../../shared/result.js";
import { checkpointShape } from "../checkpoint/load-policy.js";
import { writeReport } from "../report/report.js";
import { runRl } from "../rl/run.js";
import type { JobState, StageContext, StageOf } from "./plan.js";
import type { Recipe } from "./recipe.js";

const rlTitle = (name: string, recipe: Recipe) => `${name} · SFT + ${recipe.rl.algorithm}`;

/**
 * One RL segment, from the SFT weights (the first) or the last segment's checkpoint; then the segments'
 * metrics merged into one series and the run's report redrawn.
 */
export async function runRlStage(stage: StageOf<"rl">, ctx: StageContext): Promise<Result<void>> {
  const { recipe, io, state, sizes } = ctx;
  const done = sizes.slice(0, stage.segment - 1).reduce((a, b) => a + b, 0);
  io.log(
    `stage rl ${stage.segment}/${sizes.length}: ${recipe.rl.algorithm} iterations ${done + 1}–${done + stage.iterations} of ${recipe.rl.iterations}`,
  );
  const sftWeights = await weightsOnly(state.sft?.checkpoint ?? stage.init);
  const init = stage.segment === 1 ? sftWeights : stage.init;
  const rl = await runRl(
    // Each segment gets its own seed so that segments draw different tasks.
    {
      ...recipe.rl,
      env: ctx.env,
      init,
      model: checkpointShape(recipe.rl.model),
      // Every segment's KL term pulls toward the SFT policy, not toward where the last one ended.
      ...(recipe.rl.klCoef > 0 ? { reference: sftWeights } : {}),
      out: stage.out,
      iterations: stage.iterations,
      seed: recipe.rl.seed * 1000 + stage.segment,
    },
    io,
    (i, _total, m) => {
      ctx.progress(recipe.rl.algorithm, done + i, recipe.rl.iterations, m);
      ctx.stopIfAsked();
    },
  );
  if (!rl.ok) return rl;
  state.segments.push({ dir: stage.out, iterations: stage.iterations, seconds: ctx.seconds() });
  await mergeMetrics(join(ctx.runDir, "rl"), state);
  await writeReport(join(ctx.runDir, "rl"), rlTitle(ctx.name, recipe));
  return ok(undefined);
}

/** The segments' metrics.jsonl as one series (iterations numbered across segments) in `<runDir>/rl`. */
async function mergeMetrics(dir: string, state: JobState): Promise<void> {
  let offset = 0;
  const lines: string[] = [];
  for (const s of state.segments) {
    const text = await readFile(join(s.dir, "metrics.jsonl"), "utf8");
    for (const line of text.split("\n").filter((l) => l.trim() !== "")) {
      const row = JSON.parse(line) as Record<string, number>;
      lines.push(JSON.stringify({ ...row, iteration: offset + (row.iteration ?? 0) }));
    }
    offset += s.iterations;
  }
  await writeFile(join(dir, "metrics.jsonl"), `${lines.join("\n")}\n`);
}

/**
 * The SFT checkpoint without its optimizer state, beside it: RL starts a fresh Adam at the RL learning
 * rate (a loaded optimizer keeps SFT's learning rate, and its moments cover only the variables SFT
 * trained, not the value head).
 */
export async function weightsOnly(checkpoint: string): Promise<string> {
  const dir = `${checkpoint}-weights`;
  await cp(checkpoint, dir, {
    recursive: true,
    filter: (src) => !/optimizer\.(json|safetensors)$/.test(src),
  });
  return dir;
}
