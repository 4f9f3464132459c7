import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { err } from "../../shared/result.js";
import { leaderboardName } from "../eval/config.js";
import { runEval } from "../eval/evaluate.js";
import { SftConfig } from "../sft/config.js";
import { runSft } from "../sft/run.js";

const logged: string[] = [];
const io = {
  log: (line: string) => logged.push(line),
  saveCheckpoint: async () => err("unused"),
  loadCheckpoint: async () => err("unused"),
};

describe("errors keep the context the env gave them", () => {
  it("eval on a dataset env that was never imported shows the env's dataset_not_imported with its command", async () => {
    // No local dataset file: calculator-gsm8k counts 0 tasks in every split.
    const result = await runEval(
      { env: "local:calculator-gsm8k", policy: "openai:http://127.0.0.1:9/v1", split: "test", n: 2 },
      io,
      { EDGEGYM_DATA_DB: "/nonexistent/edgegym-data.db" },
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toContain(
      'dataset "gsm8k" has not been imported; run: npm run data -- import gsm8k',
    );
    expect(result.error).toContain("(dataset_not_imported)");
    expect(result.error).not.toContain("has no tasks");
  });

  it("eval on a split the env does not have lists its splits", async () => {
    const result = await runEval(
      { env: "local:calculator", policy: "openai:http://127.0.0.1:9/v1", split: "dev" },
      io,
    );
    expect(result).toMatchObject({
      ok: false,
      error: 'calculator has no split "dev" (its splits: train, test)',
    });
  });

  it("sft --split test says the expert refuses the test split, before any model is loaded", async () => {
    logged.length = 0;
    const result = await runSft(SftConfig.parse({ env: "local:calculator", split: "test", episodes: 2 }), io);
    expect(result).toMatchObject({
      ok: false,
      error: expect.stringContaining('the expert of calculator refuses split "test"'),
    });
    // No backend line: the refusal came before tfjs was loaded and demonstrations were collected.
    expect(logged.filter((l) => l.startsWith("backend:"))).toEqual([]);
  });

  it("sft with learnSteps past every demonstration's steps names them instead of training nothing", async () => {
    // A calculator expert episode is 2 steps (0: the tool call, 1: the answer), so step 40 is in none.
    const tiny = { dModel: 16, nLayers: 1, nHeads: 2, nKvHeads: 2, dFf: 32, contextLength: 512 };
    const out = await mkdtemp(join(tmpdir(), "edgegym-learn-steps-"));
    const config = {
      env: "local:calculator",
      out,
      episodes: 2,
      backend: "cpu",
      learnSteps: [40],
      model: tiny,
    };
    const result = await runSft(SftConfig.parse(config), io);
    expect(result).toEqual({
      ok: false,
      error: "no usable demonstration reaches learnSteps [40] (steps count from 0)",
    });
  }, 60_000);

  it("--model names the leaderboard entry of a checkpoint policy too", () => {
    expect(leaderboardName({ policy: "runs/x/checkpoints/final", model: "tiny-grpo" })).toBe("tiny-grpo");
    expect(leaderboardName({ policy: "runs/x/checkpoints/final" })).toBe("runs/x/checkpoints/final");
    expect(leaderboardName({ policy: "openai:http://h/v1" })).toBe("default");
  });
});
