import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadCheckpoint, saveCheckpoint } from "../checkpoint/checkpoint.js";
import { SftConfig } from "../sft/config.js";
import { runSft } from "../sft/run.js";
import { resolveTrainConfig } from "./config.js";
import { runRl } from "./run.js";

const tiny = { dModel: 16, nLayers: 1, nHeads: 2, nKvHeads: 2, dFf: 32, contextLength: 384 };

describe("edgegym train --init <sft checkpoint>", () => {
  it("starts RL from the SFT weights with a fresh optimizer instead of SFT's Adam state", async () => {
    const root = await mkdtemp(join(tmpdir(), "edgegym-warm-"));
    const io = { log: () => {}, saveCheckpoint, loadCheckpoint };
    const sft = await runSft(
      SftConfig.parse({ out: join(root, "sft"), backend: "cpu", episodes: 2, epochs: 1, model: tiny }),
      io,
    );
    if (!sft.ok) throw new Error(sft.error);
    const config = resolveTrainConfig({}, [
      `out=${join(root, "rl")}`,
      `init=${sft.value.checkpoint}`,
      "backend=cpu",
      "iterations=1",
      "tasksPerIteration=2",
      "groupSize=2",
      "maxSteps=2",
      "maxNewTokens=4",
    ]);
    if (!config.ok) throw new Error(config.error);
    const rl = await runRl(config.value, io);
    expect(rl.ok ? "ok" : rl.error).toBe("ok");
  }, 120_000);
});
