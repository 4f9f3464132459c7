import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../backend/backend.js";
import { FRESH_MODEL_SHAPE } from "../model/config.js";
import { createModel } from "../model/create-model.js";
import type { PolicyModel } from "../model/types.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import { bpeTokenizerFiles } from "../tokenizer/byte-tokenizer-files.js";
import { loadCheckpoint, saveCheckpoint } from "./checkpoint.js";
import { loadPolicy } from "./load-policy.js";

const io = { log: () => {}, saveCheckpoint, loadCheckpoint };
const small = { vocabSize: 268, dModel: 16, nLayers: 1, nHeads: 2, nKvHeads: 2, dFf: 32, contextLength: 64 };
let root = "";
let dir = "";

beforeAll(async () => {
  const ready = await initBackend("cpu");
  if (!ready.ok) throw new Error(ready.error);
  root = await mkdtemp(join(tmpdir(), "edgegym-load-policy-"));
  dir = join(root, "ckpt");
  const model = createModel({ ...small, valueHead: true }, { seed: 5 });
  if (!model.ok) throw new Error(model.error);
  const saved = await saveCheckpoint(dir, {
    model: model.value,
    tokenizer: new ByteTokenizer(),
    meta: { step: 0 },
  });
  if (!saved.ok) throw new Error(saved.error);
  model.value.dispose();
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const logitsOf = (model: PolicyModel, ids: number[]): number[] =>
  tf.tidy(() => Array.from(model.logits(tf.tensor2d([ids], [1, ids.length], "int32")).dataSync()));

describe("loadPolicy", () => {
  it("makes a fresh model of the fresh shape with the fields given replacing its own", async () => {
    const fresh = await loadPolicy(undefined, { dModel: 32, contextLength: 96 }, 1, io);
    if (!fresh.ok) throw new Error(fresh.error);
    expect(fresh.value.model.config).toMatchObject({ ...FRESH_MODEL_SHAPE, dModel: 32, contextLength: 96 });
    fresh.value.model.dispose();
  });

  it("keeps a checkpoint's saved context unless model.contextLength is given", async () => {
    const saved = await loadPolicy(dir, {}, 1, io);
    if (!saved.ok) throw new Error(saved.error);
    expect(saved.value.model.config.contextLength).toBe(64);
    saved.value.model.dispose();
  });

  it("runs a checkpoint at the model.contextLength given, with the same logits where both contexts reach", async () => {
    const [short, long] = await Promise.all([
      loadPolicy(dir, {}, 1, io),
      loadPolicy(dir, { contextLength: 128 }, 1, io),
    ]);
    if (!short.ok || !long.ok) throw new Error("cannot load the checkpoint");
    expect(long.value.model.config.contextLength).toBe(128);
    const ids = Array.from({ length: 100 }, (_, i) => (i * 7) % 268);
    // 100 tokens exceed the saved context of 64 and fit the new one of 128.
    expect(() => logitsOf(short.value.model, ids)).toThrow(/exceeds contextLength 64/);
    const longLogits = logitsOf(long.value.model, ids);
    expect(longLogits).toHaveLength(100 * 268);
    // RoPE angles depend only on the position, so the first 40 positions score alike under either context.
    const head = ids.slice(0, 40);
    const a = logitsOf(short.value.model, head);
    const b = logitsOf(long.value.model, head);
    expect(Math.max(...a.map((x, i) => Math.abs(x - (b[i] ?? Number.NaN))))).toBeLessThan(1e-5);
    short.value.model.dispose();
    long.value.model.dispose();
  });

  it("refuses a shape field that differs from the checkpoint's instead of ignoring it", async () => {
    const same = await loadPolicy(dir, { dModel: 16, nLayers: 1 }, 1, io);
    if (!same.ok) throw new Error(same.error);
    same.value.model.dispose();
    const wider = await loadPolicy(dir, { dModel: 32 }, 1, io);
    expect(wider).toEqual({
      ok: false,
      error: `model.dModel 32 differs from the checkpoint ${dir} (dModel 16): a checkpoint's shape is fixed, only model.contextLength can change`,
    });
  });

  it("gives a fresh model the tokenizer in model.tokenizer, its vocabulary setting the model's", async () => {
    const tok = join(root, "bpe");
    await mkdir(tok);
    const files = bpeTokenizerFiles([
      ["l", "o"],
      ["lo", "w"],
    ]);
    for (const [name, content] of Object.entries(files))
      await writeFile(join(tok, name), JSON.stringify(content));
    const fresh = await loadPolicy(undefined, { tokenizer: tok }, 1, io);
    if (!fresh.ok) throw new Error(fresh.error);
    // 256 bytes + 12 specials + "lo" + "low".
    expect(fresh.value.model.config.vocabSize).toBe(270);
    expect(fresh.value.tokenizer.encode("low")).toEqual([269]);
    fresh.value.model.dispose();
  });

  it("refuses a tokenizer folder without tokenizer.json, and a tokenizer given with a checkpoint", async () => {
    expect(await loadPolicy(undefined, { tokenizer: root }, 1, io)).toEqual({
      ok: false,
      error: `model.tokenizer ${root} holds no tokenizer.json`,
    });
    expect(await loadPolicy(dir, { tokenizer: join(root, "bpe") }, 1, io)).toEqual({
      ok: false,
      error: `model.tokenizer is for a fresh model: the checkpoint ${dir} brings its own tokenizer`,
    });
  });
});
