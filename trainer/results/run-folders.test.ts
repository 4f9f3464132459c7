import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loggedModelSize, modelSize, readRuns } from "./run-folders.js";

describe("reading run folders for npm run results", () => {
  it("reads every folder with a state.json and names the ones it cannot read", async () => {
    const root = await mkdtemp(join(tmpdir(), "edgegym-run-folders-"));
    const write = async (name: string, text: string) => {
      await mkdir(join(root, name), { recursive: true });
      await writeFile(join(root, name, "state.json"), text);
    };
    const resolved = { description: "d", env: "edgegym/calculator@1.0.0", rl: { algorithm: "gae", seed: 2 } };
    await write("b-ppo", JSON.stringify({ recipe: "b", resolved, segments: [] }));
    await write("a-grpo", JSON.stringify({ recipe: "a", resolved: { ...resolved, rl: {} }, segments: [] }));
    await write("broken", "{ not json");
    await write("odd", JSON.stringify({ recipe: "c", resolved: { ...resolved, nope: 1 }, segments: [] }));
    await mkdir(join(root, "no-state"));
    const { runs, skipped } = await readRuns([root, join(root, "absent-root")]);
    // Sorted by recipe name; the old run's "gae" reads as today's "ppo".
    expect(runs.map((r) => [r.state.recipe, r.recipe.rl.algorithm, r.recipe.rl.seed])).toEqual([
      ["a", "grpo", 1],
      ["b", "ppo", 2],
    ]);
    expect(skipped).toHaveLength(2);
    expect(skipped.find((s) => s.startsWith(join(root, "broken")))).toContain("not JSON");
    expect(skipped.find((s) => s.startsWith(join(root, "odd")))).toContain("nope");
  });

  it("gives a checkpoint's width, layers and parameters from its config.json", async () => {
    // recipes/checkpoints/calculator-sft: vocab 268, d 64, 2 layers, 4 heads of 16 (4 KV), d_ff 176,
    // qwen2 (q/k/v biases), tied embeddings, a value head. Embedding 268·64 = 17,152; per layer:
    // norms 2·64 = 128, q/k/v 64·(4 + 2·4)·16 = 12,288 + biases (4 + 2·4)·16 = 192, o 4·16·64 = 4,096,
    // SwiGLU 3·64·176 = 33,792 → 50,496, two layers 100,992; final norm 64; value head 64 + 1 = 65.
    // 17,152 + 100,992 + 64 + 65 = 118,273.
    const size = await modelSize(resolve(import.meta.dirname, "../../recipes/checkpoints/calculator-sft"));
    expect(size).toEqual({ dModel: 64, nLayers: 2, params: 118_273 });
    expect(await modelSize(join(tmpdir(), "edgegym-no-such-checkpoint"))).toBeUndefined();
  });

  it("reads the size from the run's job.log when its checkpoint folder is gone", async () => {
    const dir = await mkdtemp(join(tmpdir(), "edgegym-run-log-"));
    // The calculator base's shape (118,273 parameters, arithmetic above), as a stage prints it.
    const modelConfig = {
      arch: "qwen2",
      vocabSize: 268,
      dModel: 64,
      nLayers: 2,
      nHeads: 4,
      nKvHeads: 4,
      dFf: 176,
      contextLength: 1024,
      ropeTheta: 10000,
      rmsNormEps: 1e-6,
      tieEmbeddings: true,
      valueHead: true,
    };
    const log = ["stage sft: 256 demos", `config: ${JSON.stringify({ seed: 3, modelConfig })}`, "config: {}"];
    await writeFile(join(dir, "job.log"), `${log.join("\n")}\n`);
    expect(await loggedModelSize(dir)).toEqual({ dModel: 64, nLayers: 2, params: 118_273 });
    // A d 128 model of 3 layers in the same log's place is read as such, not as the base.
    await writeFile(
      join(dir, "job.log"),
      `config: ${JSON.stringify({ modelConfig: { ...modelConfig, dModel: 128, nLayers: 3 } })}\n`,
    );
    expect((await loggedModelSize(dir))?.nLayers).toBe(3);
    await writeFile(join(dir, "job.log"), "config: { not json\n");
    expect(await loggedModelSize(dir)).toBeUndefined();
    expect(await loggedModelSize(join(dir, "absent"))).toBeUndefined();
  });
});
