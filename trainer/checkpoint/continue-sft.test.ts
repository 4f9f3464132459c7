import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveTrainConfig } from "../rl/config.js";
import { runTraining } from "../rl/run.js";
import { SftConfig } from "../sft/sft-config.js";
import { runSft } from "../sft/sft-run.js";
import { loadCheckpoint, saveCheckpoint } from "./checkpoint.js";

const tiny = { dModel: 16, nLayers: 1, nHeads: 2, nKvHeads: 2, dFf: 32, contextLength: 384 };
const io = { log: () => {}, saveCheckpoint, loadCheckpoint };
let root = "";
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("continuing from an SFT checkpoint", () => {
  it("edgegym sft --init <sft checkpoint> continues with the saved Adam state, and train --init starts RL", async () => {
    root = await mkdtemp(join(tmpdir(), "edgegym-continue-"));
    const sft = (out: string, init?: string) =>
      runSft(
        SftConfig.parse({
          out: join(root, out),
          backend: "cpu",
          episodes: 2,
          epochs: 1,
          model: tiny,
          ...(init ? { init } : {}),
        }),
        io,
      );
    const first = await sft("sft");
    if (!first.ok) throw new Error(first.error);
    const second = await sft("sft-more", first.value.checkpoint);
    if (!second.ok) throw new Error(second.error);
    const [before, after] = await Promise.all([
      loadCheckpoint(first.value.checkpoint),
      loadCheckpoint(second.value.checkpoint),
    ]);
    if (!before.ok || !after.ok) throw new Error("cannot reload the SFT checkpoints");
    // The second run stepped the restored optimizer further rather than starting a fresh one.
    expect(after.value.optimizer?.iterations).toBeGreaterThan(before.value.optimizer?.iterations ?? 0);

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
    const trained = await runTraining(rl.value, io);
    expect(trained.ok ? "ok" : trained.error).toBe("ok");
  }, 120_000);
});
