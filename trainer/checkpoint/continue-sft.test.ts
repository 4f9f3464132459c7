import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveTrainConfig } from "../rl/config.js";
import { runRl } from "../rl/run.js";
import { SftConfig } from "../sft/config.js";
import { runSft } from "../sft/run.js";
import { loadCheckpoint, saveCheckpoint } from "./checkpoint.js";

const tiny = { dModel: 16, nLayers: 1, nHeads: 2, nKvHeads: 2, dFf: 32, contextLength: 384 };
const io = { log: () => {}, saveCheckpoint, loadCheckpoint };
let root = "";
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("continuing from an SFT checkpoint", () => {
  it("edgegym sft --init <sft checkpoint> continues with the saved Adam state at its own lr, and train --init starts RL", async () => {
    root = await mkdtemp(join(tmpdir(), "edgegym-continue-"));
    const sft = (out: string, lr: number, init?: string) =>
      runSft(
        SftConfig.parse({
          out: join(root, out),
          backend: "cpu",
          episodes: 2,
          epochs: 1,
          lr,
          model: tiny,
          ...(init ? { init } : {}),
        }),
        io,
      );
    const first = await sft("sft", 0.003);
    if (!first.ok) throw new Error(first.error);
    const second = await sft("sft-more", 0.0003, first.value.checkpoint);
    if (!second.ok) throw new Error(second.error);
    const [before, after] = await Promise.all([
      loadCheckpoint(first.value.checkpoint),
      loadCheckpoint(second.value.checkpoint),
    ]);
    if (!before.ok || !after.ok) throw new Error("cannot reload the SFT checkpoints");
    // The second run stepped the restored optimizer further rather than starting a fresh one.
    expect(after.value.optimizer?.iterations).toBeGreaterThan(before.value.optimizer?.iterations ?? 0);
    // ...at the second run's own learning rate, not the one saved with the first run's moments.
    expect(before.value.optimizer?.getConfig().learningRate).toBe(0.003);
    expect(after.value.optimizer?.getConfig().learningRate).toBe(0.0003);

    const rl = resolveTrainConfig({}, [
      `out=${join(root, "rl")}`,
      `init=${second.value.checkpoint}`,
      "backend=cpu",
      "algorithm=steppo",
      "iterations=1",
      "tasksPerIteration=2",
      "groupSize=2",
      "maxSteps=2",
      "maxNewTokens=4",
    ]);
    if (!rl.ok) throw new Error(rl.error);
    const trained = await runRl(rl.value, io);
    expect(trained.ok ? "ok" : trained.error).toBe("ok");
  }, 120_000);
});
