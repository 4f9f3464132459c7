import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadCheckpoint, saveCheckpoint } from "../checkpoint/checkpoint.js";
import { resolveTrainConfig } from "../rl/config.js";
import { runRl } from "../rl/run.js";

/** A small seeded run on wasm: 4 tasks × 4 rollouts, 2 iterations (the second samples with updated weights). */
const SMALL_RUN = ["backend=wasm", "iterations=2", "tasksPerIteration=4", "groupSize=4", "miniBatchRows=6"];
/** A fresh 1-layer d32 model: no task solved, so only a value loss trains (PPO). */
const FRESH = ["model.dModel=32", "model.nLayers=1", "model.nHeads=2", "model.nKvHeads=2", "model.dFf=48"];

async function metricsOf(workers: number, extra: string[]): Promise<Record<string, number>[]> {
  const out = await mkdtemp(join(tmpdir(), `edgegym-workers-${workers}-`));
  const io = { log: () => {}, saveCheckpoint, loadCheckpoint };
  const config = resolveTrainConfig({}, [`out=${out}`, `workers=${workers}`, ...SMALL_RUN, ...extra]);
  if (!config.ok) throw new Error(config.error);
  const result = await runRl(config.value, io);
  if (!result.ok) throw new Error(result.error);
  return (await readFile(join(out, "metrics.jsonl"), "utf8"))
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, number>);
}

describe("an RL run on 2 workers", () => {
  for (const [name, extra] of [
    // The committed calculator policy solves some tasks, so GRPO has nonzero advantages.
    [
      "GRPO with a KL reference",
      [
        "algorithm=grpo",
        "klCoef=0.1",
        "init=recipes/checkpoints/calculator-sft",
        "maxSteps=3",
        "maxNewTokens=80",
      ],
    ],
    ["PPO with a value head", ["algorithm=ppo", "maxSteps=2", "maxNewTokens=16", "lr=0.01", ...FRESH]],
  ] as const) {
    it(`${name}: samples the same episodes and logs the same metrics as 1 worker`, async () => {
      const one = await metricsOf(1, [...extra]);
      const two = await metricsOf(2, [...extra]);
      expect(two).toHaveLength(2);
      one.forEach((row, i) => {
        const other = two[i] as Record<string, number>;
        // The tokens decide these; they must match exactly.
        for (const key of ["reward/mean", "episode/steps", "episode/response_tokens", "episode/count"])
          expect(other[key], `${key} at iteration ${i + 1}`).toBe(row[key]);
        // Losses and the gradient norm: equal up to the order of float additions.
        const losses = Object.keys(row).filter((k) => k.startsWith("losses/") || k === "grad/norm");
        expect(losses.length).toBeGreaterThan(2);
        expect(row["grad/norm"]).toBeGreaterThan(0);
        for (const key of losses)
          expect(other[key], `${key} at iteration ${i + 1}`).toBeCloseTo(row[key] as number, 5);
      });
    }, 120_000);
  }
});
