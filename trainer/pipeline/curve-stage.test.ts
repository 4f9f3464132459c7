import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../backend/backend.js";
import { loadCheckpoint, saveCheckpoint } from "../checkpoint/checkpoint.js";
import { createModel } from "../model/create-model.js";
import type { RunIO } from "../run/io.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import { readCurve } from "./curve.js";
import { curveEnvSpec, runCurveStage, taskEnvSpec } from "./curve-stage.js";
import type { JobState } from "./plan.js";
import { parseRecipe } from "./recipe.js";

/** 2 RL iterations in segments of 1, a point every iteration, 3 test tasks: points 0, 1 and 2. */
const parsed = parseRecipe({
  description: "tiny curve",
  env: "edgegym/calculator@1.0.0",
  sft: { backend: "cpu" },
  rl: { iterations: 2, backend: "cpu" },
  segment: 1,
  eval: { split: "test", n: 3, maxSteps: 2, maxNewTokens: 4 },
  curve: { every: 1, n: 3 },
});
if (!parsed.ok) throw new Error(parsed.error);
const recipe = parsed.value;

/** A run folder whose SFT and both segments' final checkpoints are one tiny random model. */
async function runFolder(): Promise<{ runDir: string; state: JobState }> {
  const runDir = await mkdtemp(join(tmpdir(), "edgegym-curve-stage-"));
  const made = createModel(
    { dModel: 16, nLayers: 1, nHeads: 2, nKvHeads: 2, dFf: 32, contextLength: 384 },
    { seed: 1 },
  );
  if (!made.ok) throw new Error(made.error);
  const sft = join(runDir, "sft", "checkpoints", "final");
  const saved = await saveCheckpoint(sft, {
    model: made.value,
    tokenizer: new ByteTokenizer(),
    meta: { step: 0 },
  });
  if (!saved.ok) throw new Error(saved.error);
  made.value.dispose();
  const segments = [1, 2].map((i) => ({
    dir: join(runDir, "rl", `segment-${i}`),
    iterations: 1,
    seconds: 1,
  }));
  for (const s of segments) await cp(sft, join(s.dir, "checkpoints", "final"), { recursive: true });
  return {
    runDir,
    state: { recipe: "tiny", resolved: recipe, sft: { checkpoint: sft, seconds: 1 }, segments },
  };
}

const io = (log: string[]): RunIO => ({ log: (l) => log.push(l), saveCheckpoint, loadCheckpoint });
const hub = { url: "http://127.0.0.1:9", token: "unused" };
class Stop extends Error {}

beforeAll(async () => {
  await initBackend("cpu");
});

describe("the curve stage", () => {
  it("plays the built-in env in-process when the recipe's env is ours at this version", () => {
    expect(curveEnvSpec(recipe)).toBe("local:calculator");
    expect(curveEnvSpec({ ...recipe, env: "edgegym/calculator@0.9.0" })).toBe(
      "hub://edgegym/calculator@0.9.0",
    );
    expect(curveEnvSpec({ ...recipe, env: "someone/calculator@1.0.0" })).toBe(
      "hub://someone/calculator@1.0.0",
    );
  });

  it("counts an earlier version's tasks on the built-in env only when it keeps them (sameTasksAs), and never plays them there", () => {
    // webshop-l2 1.6.0 changed only how a host with a database ranks, so its tasks are 1.5.0's
    // (sameTasksAs); 1.4.0's are not declared. webshop-l1 2.0.0 has a new catalog and declares none;
    // 1.8.0, with 1.5.0–1.7.0's tasks, is archived (environments/builtin.ts) and plays in process, as
    // do webshop-l1 2.0.0 and webshop-l2 1.6.0 since their next versions named the product's type.
    const at = (name: string, version: string) => ({ ...recipe, env: `edgegym/${name}@${version}` });
    expect(curveEnvSpec(at("webshop-l2", "2.0.0"))).toBe("local:webshop-l2");
    expect(curveEnvSpec(at("webshop-l2", "1.6.0"))).toBe("local:webshop-l2@1.6.0");
    expect(taskEnvSpec(at("webshop-l2", "1.5.0"))).toBe("local:webshop-l2@1.6.0");
    expect(curveEnvSpec(at("webshop-l2", "1.5.0"))).toBe("hub://edgegym/webshop-l2@1.5.0");
    expect(taskEnvSpec(at("webshop-l2", "1.4.0"))).toBe("hub://edgegym/webshop-l2@1.4.0");
    expect(curveEnvSpec(at("webshop-l1", "3.0.0"))).toBe("local:webshop-l1");
    expect(curveEnvSpec(at("webshop-l1", "2.0.0"))).toBe("local:webshop-l1@2.0.0");
    expect(curveEnvSpec(at("webshop-l1", "1.8.0"))).toBe("local:webshop-l1@1.8.0");
    expect(taskEnvSpec(at("webshop-l1", "1.8.0"))).toBe("local:webshop-l1@1.8.0");
    expect(taskEnvSpec(at("webshop-l1", "1.5.0"))).toBe("local:webshop-l1@1.8.0");
    expect(curveEnvSpec(at("webshop-l1", "1.7.0"))).toBe("hub://edgegym/webshop-l1@1.7.0");
    expect(taskEnvSpec(at("webshop-l1", "1.4.0"))).toBe("hub://edgegym/webshop-l1@1.4.0");
    expect(taskEnvSpec({ ...recipe, env: "someone/webshop-l1@1.5.0" })).toBe(
      "hub://someone/webshop-l1@1.5.0",
    );
  });

  it("writes a point per checkpoint, resumes after a stop without redoing points, and marks a missing checkpoint absent", async () => {
    const { runDir, state } = await runFolder();
    const log: string[] = [];
    // Stop once the first point (iteration 0) is written.
    const first = runCurveStage({
      recipe,
      runDir,
      state,
      hub,
      io: io(log),
      stopIfAsked: () => {},
      progress: (done) => {
        if (done === 1) throw new Stop();
      },
    });
    await expect(first).rejects.toBeInstanceOf(Stop);
    const partial = await readCurve(runDir);
    expect(partial?.points.map((p) => p.iteration)).toEqual([0]);
    expect(partial?.points[0]?.n).toBe(3);
    expect(partial?.points[0]?.checkpoint).toBe(state.sft?.checkpoint);

    // Segment 2's checkpoint is gone: iteration 2 is recorded absent, iteration 1 evaluated.
    await rm(join(runDir, "rl", "segment-2", "checkpoints", "final"), { recursive: true });
    const resumed: string[] = [];
    const second = await runCurveStage({
      recipe,
      runDir,
      state,
      hub,
      io: io(resumed),
      stopIfAsked: () => {},
      progress: () => {},
    });
    if (!second.ok) throw new Error(second.error);
    expect(resumed.find((l) => l.startsWith("stage curve:"))).toMatch(
      /^stage curve: 2 of 3 points \(iterations 1, 2\)/,
    );
    expect(second.value.points.map((p) => [p.iteration, p.n])).toEqual([
      [0, 3],
      [1, 3],
    ]);
    expect(second.value.absent).toEqual([2]);
    // Every point's rate is its count over n: the same weights give the same greedy play.
    for (const p of second.value.points) expect(p.success).toBe(p.successes / 3);
    expect(second.value.points[1]?.successes).toBe(second.value.points[0]?.successes);

    // Nothing left: a third run evaluates nothing.
    const third: string[] = [];
    const again = await runCurveStage({
      recipe,
      runDir,
      state,
      hub,
      io: io(third),
      stopIfAsked: () => {},
      progress: () => {},
    });
    expect(again.ok && again.value.points.length).toBe(2);
    expect(third.some((l) => l.startsWith("stage curve:"))).toBe(false);

    // Another seed that adopted this SFT stage (--reuse) takes the iteration-0 point from this curve.
    const seed2 = await runFolder();
    const adopted = {
      ...seed2.state,
      sft: { checkpoint: state.sft?.checkpoint ?? "", seconds: 1, from: runDir },
    };
    const fourth: string[] = [];
    const other = await runCurveStage({
      recipe,
      runDir: seed2.runDir,
      state: adopted,
      hub,
      io: io(fourth),
      stopIfAsked: () => {},
      progress: () => {},
    });
    if (!other.ok) throw new Error(other.error);
    expect(fourth).toContain(`curve: iteration 0 adopted from ${runDir}`);
    expect(fourth.find((l) => l.startsWith("stage curve:"))).toMatch(
      /^stage curve: 2 of 3 points \(iterations 1, 2\)/,
    );
    expect(other.value.points[0]).toEqual({ ...second.value.points[0], from: runDir });
  }, 120_000);
});
