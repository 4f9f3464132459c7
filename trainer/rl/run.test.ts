import { access, mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadCheckpoint, saveCheckpoint } from "../checkpoint/checkpoint.js";
import { runEval } from "../eval/evaluate.js";
import { resolveTrainConfig } from "./config.js";
import { runRl } from "./run.js";

/** A tiny run: 2 tasks × 2 rollouts of short episodes, a 1-layer d16 model, KL on, on the cpu backend. */
const TINY_RUN = [
  "backend=cpu",
  "tasksPerIteration=2",
  "groupSize=2",
  "maxSteps=2",
  "maxNewTokens=6",
  "klCoef=0.01",
  "model.dModel=16",
  "model.nLayers=1",
  "model.nHeads=2",
  "model.nKvHeads=2",
  "model.dFf=32",
];

describe("an RL run", () => {
  it("writes config, metrics, trajectories, checkpoints and the report; the checkpoint evaluates", async () => {
    const out = await mkdtemp(join(tmpdir(), "edgegym-run-"));
    const logs: string[] = [];
    const io = { log: (l: string) => logs.push(l), saveCheckpoint, loadCheckpoint };
    const config = resolveTrainConfig({}, [`out=${out}`, ...TINY_RUN, "iterations=2", "checkpointEvery=1"]);
    if (!config.ok) throw new Error(config.error);
    const seen: number[] = [];
    const result = await runRl(config.value, io, (i) => seen.push(i));
    if (!result.ok) throw new Error(result.error);
    expect(seen).toEqual([1, 2]);
    expect(logs[0]).toBe("backend: cpu");
    expect(logs.some((l) => l.startsWith("config: {"))).toBe(true);

    const saved = JSON.parse(await readFile(join(out, "config.json"), "utf8"));
    expect(saved).toMatchObject({ algorithm: "grpo", backend: "cpu", groupSize: 2 });
    const metrics = (await readFile(join(out, "metrics.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(metrics).toHaveLength(2);
    for (const key of [
      "reward/mean",
      "reward/success",
      "episode/steps",
      "episode/tool_calls",
      "losses/policy",
      "losses/kl",
      "losses/clipfrac",
      "perf/train_tokens_per_s",
      "perf/sample_tokens_per_s",
      "perf/env_steps_per_s",
    ]) {
      expect(typeof metrics[1][key], key).toBe("number");
    }
    expect(metrics[1]["episode/count"]).toBe(4);
    const trajectory = JSON.parse(
      (await readFile(join(out, "trajectories.jsonl"), "utf8")).split("\n")[0] as string,
    );
    expect(trajectory.steps[0].prompt).toContain("<|user|>");
    expect(trajectory.steps[0].responseIds.length).toBeGreaterThan(0);
    await access(join(out, "checkpoints", "iter-1", "config.json"));
    await access(join(out, "report.png"));

    const evaluated = await runEval(
      {
        env: "local:calculator",
        policy: join(out, "checkpoints", "final"),
        model: "default",
        split: "test",
        n: 2,
        maxSteps: 2,
        maxNewTokens: 4,
        temperature: 0,
        seed: 1,
        backend: "cpu",
        concurrency: 2,
        upload: false,
      },
      io,
    );
    expect(evaluated).toMatchObject({ ok: true, value: { episodes: 2, infraFailures: 0 } });
  }, 120_000);

  it("pulls toward the KL reference checkpoint when one is named, else toward its starting weights", async () => {
    const io = { log: () => {}, saveCheckpoint, loadCheckpoint };
    const run = async (extra: string[]) => {
      const out = await mkdtemp(join(tmpdir(), "edgegym-ref-"));
      const config = resolveTrainConfig({}, [
        `out=${out}`,
        ...TINY_RUN,
        "iterations=1",
        "miniBatchRows=0",
        ...extra,
      ]);
      if (!config.ok) throw new Error(config.error);
      const result = await runRl(config.value, io);
      if (!result.ok) return { error: result.error, out, kl: Number.NaN };
      const metrics = JSON.parse((await readFile(join(out, "metrics.jsonl"), "utf8")).trim());
      return { error: undefined, out, kl: metrics["losses/kl"] as number };
    };
    // One minibatch, scored before the step: against its own starting weights the KL is exactly 0.
    const own = await run(["seed=1"]);
    expect(own.kl).toBeCloseTo(0, 6);
    // Against another model's weights (seed 1's run, from a different initialisation) it is not.
    const other = await run(["seed=2", `reference=${join(own.out, "checkpoints", "final")}`]);
    expect(other.error).toBeUndefined();
    expect(other.kl).toBeGreaterThan(1e-3);
    const missing = await run(["seed=2", "reference=/nonexistent/checkpoint"]);
    expect(missing.error).toMatch(/cannot load the KL reference \/nonexistent\/checkpoint/);
  }, 120_000);

  it("with filterGroups rolls out more rounds of tasks and reports what it kept", async () => {
    const out = await mkdtemp(join(tmpdir(), "edgegym-run-filter-"));
    const io = { log: () => {}, saveCheckpoint, loadCheckpoint };
    const config = resolveTrainConfig({}, [
      `out=${out}`,
      ...TINY_RUN,
      "iterations=1",
      "filterGroups=true",
      "filterRounds=2",
    ]);
    if (!config.ok) throw new Error(config.error);
    const result = await runRl(config.value, io);
    if (!result.ok) throw new Error(result.error);
    const m = result.value.last;
    // Each round is 2 tasks × 2 rollouts; a second round runs only when round 0 kept fewer than 2 groups.
    expect(m["filter/rounds"] === 1 || m["filter/rounds"] === 2).toBe(true);
    expect(m["episode/count"]).toBe(4 * (m["filter/rounds"] as number));
    if (m["filter/rounds"] === 1) expect(m["filter/kept_groups"]).toBe(2);
    expect(m["filter/kept_groups"]).toBeLessThanOrEqual(2);
    expect(m["filter/informative_frac"]).toBeGreaterThanOrEqual(0);
  });
});
