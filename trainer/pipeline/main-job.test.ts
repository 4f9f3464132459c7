import { mkdtemp, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../backend/backend.js";
import { saveCheckpoint } from "../checkpoint/checkpoint.js";
import { createModel } from "../model/create-model.js";
import { startTestHub } from "../testing/test-hub.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import { beforeAfter, modelSize } from "./before-after.js";
import type { LocalHub } from "./local-hub.js";
import { runMainJob } from "./main-job.js";
import { loadState } from "./plan.js";
import { parseRecipe } from "./recipe.js";
import { readSourceRun } from "./reuse.js";

/** A miniature recipe: a tiny model, a handful of demos and rollouts, 10 eval tasks (the leaderboard's floor). */
const mini = parseRecipe({
  description: "miniature end-to-end run",
  env: "edgegym/calculator@1.0.0",
  sft: {
    episodes: 4,
    epochs: 1,
    batchRows: 8,
    maxSteps: 3,
    backend: "cpu",
    model: { dModel: 16, nLayers: 1, nHeads: 2, nKvHeads: 2, dFf: 32, contextLength: 384 },
  },
  rl: {
    iterations: 2,
    tasksPerIteration: 2,
    groupSize: 2,
    maxLive: 4,
    maxSteps: 2,
    maxNewTokens: 8,
    klCoef: 0.01,
    backend: "cpu",
  },
  segment: 1,
  eval: { split: "test", n: 10, maxSteps: 2, maxNewTokens: 8 },
});
if (!mini.ok) throw new Error(mini.error);
const recipe = mini.value;

let hub: LocalHub;
beforeAll(async () => {
  hub = await startTestHub("main-job");
}, 240_000);

afterAll(async () => {
  await hub?.stop();
});

describe("the main job against a real local hub (wrangler dev, local D1)", () => {
  it("stops on Ctrl-C after an iteration, resumes without redoing SFT, and both policies reach the leaderboard", async () => {
    const runDir = await mkdtemp(join(tmpdir(), "edgegym-main-job-"));
    const base = { name: "mini", recipe, runDir, hub, fresh: false, log: () => {} };

    const controller = new AbortController();
    const seen: string[] = [];
    const first = await runMainJob({
      ...base,
      signal: controller.signal,
      progress: (stage, i) => {
        seen.push(`${stage} ${i}`);
        // Ctrl-C during the first RL iteration.
        if (stage === "grpo") controller.abort();
      },
    });
    if (!first.ok) throw new Error(first.error);
    expect(first.value.interrupted).toBe(true);
    expect(seen).toEqual(["sft 1", "grpo 1"]);
    expect(first.value.state.sft).toBeDefined();
    // The interrupted segment is not recorded: it is redone on resume.
    expect(first.value.state.segments).toEqual([]);
    const sftCheckpoint = first.value.state.sft?.checkpoint ?? "";
    const sftWritten = (await stat(join(sftCheckpoint, "model.safetensors"))).mtimeMs;

    const again: string[] = [];
    const second = await runMainJob({
      ...base,
      signal: new AbortController().signal,
      progress: (stage, i) => again.push(`${stage} ${i}`),
    });
    if (!second.ok) throw new Error(second.error);
    expect(second.value.interrupted).toBe(false);
    // No SFT epoch the second time; RL runs its two one-iteration segments.
    expect(again).toEqual(["grpo 1", "grpo 2"]);
    expect((await stat(join(sftCheckpoint, "model.safetensors"))).mtimeMs).toBe(sftWritten);
    const { state } = second.value;
    expect(state.segments.map((s) => s.iterations)).toEqual([1, 1]);
    // Both segments' KL terms pull toward the SFT weights, not toward where segment 1 ended.
    for (const s of state.segments) {
      const config = JSON.parse(await readFile(join(s.dir, "config.json"), "utf8")) as { reference?: string };
      expect(config.reference).toBe(`${sftCheckpoint}-weights`);
    }
    for (const e of [state.evalSft, state.evalRl]) {
      expect(e?.aggregate.n).toBe(10);
      expect(e?.aggregate.verified).toBeGreaterThan(0);
      // Task by task, unverified tasks (cut by the step limit) as failures: as many 1s as the hub counted.
      expect(e?.outcomes).toMatch(/^[01]{10}$/);
      expect(e?.outcomes?.split("").filter((c) => c === "1").length).toBe(
        Math.round((e?.aggregate.successRate ?? -1) * 10),
      );
    }
    await stat(join(runDir, "rl", "report.png"));

    const res = await fetch(`${hub.url}/v1/envs/edgegym/calculator/leaderboard?version=1.0.0&split=test`, {
      headers: { authorization: `Bearer ${hub.token}` },
    });
    const board = (await res.json()) as { entries: { model: string }[] };
    expect(board.entries.map((e) => e.model).sort()).toEqual(["mini/sft", "mini/sft+grpo"]);

    const table = beforeAfter(state, runDir, hub.url, recipe.env, "test");
    expect(table).toContain("mini/sft+grpo");
    expect(table).toContain(state.evalRl?.runId ?? "?");
    expect(table).toContain(join(runDir, "rl", "report.png"));
    // The header's model size, read from the evaluated checkpoint: the recipe's 1 × 16 shape with the
    // byte tokenizer's 268 ids (256 bytes and 12 specials).
    expect(await modelSize(state.evalRl?.checkpoint)).toBe(
      "qwen2, 1 layer × 16 wide, context 384, vocab 268",
    );
    expect(await modelSize(join(runDir, "no-such-checkpoint"))).toBe("?");

    // A finished folder has nothing left to do.
    const third = await runMainJob({
      ...base,
      signal: new AbortController().signal,
      progress: () => again.push("x"),
    });
    expect(third.ok && third.value.interrupted).toBe(false);
    expect(again).not.toContain("x");

    // Another method with --reuse starts from this run's SFT policy: no SFT epoch, no second SFT eval.
    // It selects its RL checkpoint on train tasks 0..3.
    const rloo = parseRecipe({
      ...recipe,
      rl: { ...recipe.rl, algorithm: "rloo" },
      select: { split: "train", n: 4 },
    });
    if (!rloo.ok) throw new Error(rloo.error);
    const source = await readSourceRun(runDir);
    if (!source.ok) throw new Error(source.error);
    const stages: string[] = [];
    const log: string[] = [];
    const reused = await runMainJob({
      ...base,
      name: "mini-rloo",
      recipe: rloo.value,
      runDir: await mkdtemp(join(tmpdir(), "edgegym-main-job-")),
      reuse: source.value,
      log: (l) => log.push(l),
      signal: new AbortController().signal,
      progress: (stage, i) => stages.push(`${stage} ${i}`),
    });
    if (!reused.ok) throw new Error(reused.error);
    expect(log).toContain(`adopted from ${runDir}: sft, eval sft`);
    expect(stages).toEqual(["rloo 1", "rloo 2"]);
    expect(reused.value.state.sft).toEqual({ ...state.sft, from: runDir });
    expect(reused.value.state.evalSft?.runId).toBe(state.evalSft?.runId);
    expect(reused.value.state.evalRl?.model).toBe("mini-rloo/sft+rloo");
    // Each segment was validated on the 4 train tasks, and the hub evaluated the best one's checkpoint.
    const validated = reused.value.state.segments.map((s) => s.validation);
    expect(validated.map((v) => v?.n)).toEqual([4, 4]);
    const [v1, v2] = validated.map((v) => v?.successes ?? -1) as [number, number];
    const best = v1 > v2 ? 0 : 1;
    expect(log).toContain(`select: segment ${best + 1} of 2, the best on train tasks`);
    expect(reused.value.state.evalRl?.checkpoint).toBe(
      join(reused.value.state.segments[best]?.dir ?? "", "checkpoints", "final"),
    );
    // The RL segments started from the adopted SFT weights.
    const config = JSON.parse(
      await readFile(join(reused.value.state.segments[0]?.dir ?? "", "config.json"), "utf8"),
    ) as { init?: string };
    expect(config.init).toBe(`${sftCheckpoint}-weights`);
  }, 240_000);

  it("a failing stage is recorded in state.json with its reason, and the run is not marked done", async () => {
    const missing = parseRecipe({ ...recipe, env: "edgegym/no-such-env@1.0.0" });
    if (!missing.ok) throw new Error(missing.error);
    const runDir = await mkdtemp(join(tmpdir(), "edgegym-main-job-"));
    const failed = await runMainJob({
      name: "missing",
      recipe: missing.value,
      runDir,
      hub,
      fresh: false,
      log: () => {},
      signal: new AbortController().signal,
      progress: () => {},
    });
    expect(failed.ok).toBe(false);
    if (!failed.ok) expect(failed.error).toMatch(/^sft: /);
    const state = await loadState(runDir, "missing", missing.value, false);
    if (!state.ok) throw new Error(state.error);
    expect(state.value.failure?.stage).toBe("sft");
    expect(state.value.failure?.error).toContain("no-such-env");
    expect(state.value.sft).toBeUndefined();
  }, 60_000);

  it("with trainEnv, SFT and RL train on that env and the evaluations run on the recipe's env", async () => {
    // The evaluated env does not exist, so the first evaluation fails, after training on calculator.
    const split = parseRecipe({
      ...recipe,
      env: "edgegym/no-such-env@1.0.0",
      trainEnv: "edgegym/calculator@1.0.0",
      rl: { ...recipe.rl, iterations: 1 },
    });
    if (!split.ok) throw new Error(split.error);
    const log: string[] = [];
    const ran = await runMainJob({
      name: "transfer",
      recipe: split.value,
      runDir: await mkdtemp(join(tmpdir(), "edgegym-main-job-")),
      hub,
      fresh: false,
      log: (l) => log.push(l),
      signal: new AbortController().signal,
      progress: () => {},
    });
    expect(
      log.some((l) => l.startsWith("stage sft: 4 expert demos from hub://edgegym/calculator@1.0.0")),
    ).toBe(true);
    expect(ran.ok).toBe(false);
    if (!ran.ok) expect(ran.error).toMatch(/^eval sft: .*no-such-env/);
  }, 120_000);

  it("a recipe's base checkpoint is where its SFT stage starts, at the recipe's context length", async () => {
    // The base is 24 wide while the recipe's fresh-model shape is 16: the SFT result's width says which
    // ran. Its context (512) differs from the recipe's (384), which is the one part of the shape to apply.
    await initBackend("cpu");
    const made = createModel(
      { dModel: 24, nLayers: 1, nHeads: 2, nKvHeads: 2, dFf: 32, contextLength: 512 },
      { seed: 1 },
    );
    if (!made.ok) throw new Error(made.error);
    const baseDir = await mkdtemp(join(tmpdir(), "edgegym-base-"));
    const saved = await saveCheckpoint(baseDir, {
      model: made.value,
      tokenizer: new ByteTokenizer(),
      meta: { step: 0, kind: "sft" },
    });
    if (!saved.ok) throw new Error(saved.error);
    const withBase = parseRecipe({ ...recipe, base: baseDir });
    if (!withBase.ok) throw new Error(withBase.error);
    const controller = new AbortController();
    const log: string[] = [];
    const ran = await runMainJob({
      name: "based",
      recipe: withBase.value,
      runDir: await mkdtemp(join(tmpdir(), "edgegym-main-job-")),
      hub,
      fresh: false,
      log: (l) => log.push(l),
      signal: controller.signal,
      // Stop at the first RL iteration: only the SFT stage matters here.
      progress: (stage) => stage === "grpo" && controller.abort(),
    });
    if (!ran.ok) throw new Error(ran.error);
    expect(log.some((l) => l.startsWith("stage sft:") && l.endsWith(`from ${baseDir}`))).toBe(true);
    const sft = ran.value.state.sft?.checkpoint ?? "";
    const config = JSON.parse(await readFile(join(sft, "config.json"), "utf8")) as {
      hidden_size: number;
      edgegym: { contextLength: number };
    };
    expect(config.hidden_size).toBe(24);
    expect(config.edgegym.contextLength).toBe(384);
  }, 120_000);
});
