/**
 * Pins what a checkpoint folder carries for transformers' AutoTokenizer (checked against transformers
 * itself by `npm run check:hf`): the fields and module that keep a `model_type: qwen2` folder on its
 * own tokenizer.json, a vocabulary the Rust tokenizers number as edgegym does, and the committed
 * recipes/checkpoints/* carrying exactly what a save writes now.
 */
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../backend/backend.js";
import { FRESH_MODEL_SHAPE } from "../model/config.js";
import { createModel } from "../model/create-model.js";
import { CHATML_TOKENS, chatTemplate, writeTokenizerFolder } from "../testing/tokenizer-fixtures.js";
import { BYTE_SPECIALS, ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import { bpeTokenizerFiles, portableFiles, TOKENIZER_MODULE } from "../tokenizer/byte-tokenizer-files.js";
import { loadHfTokenizer } from "../tokenizer/hf-tokenizer.js";
import { loadTokenizer, saveTokenizer, writeTokenizerFiles } from "../tokenizer/load-tokenizer.js";
import { pieceCounts, trainBpe } from "../tokenizer/train-bpe.js";
import type { Tokenizer } from "../tokenizer/types.js";
import { saveCheckpoint } from "./checkpoint.js";

const RECIPES = join(import.meta.dirname, "../../recipes/checkpoints");
const AUTO_MAP = { AutoTokenizer: [null, "tokenization_edgegym.EdgegymTokenizer"] };

let dir = "";
beforeAll(async () => {
  const ready = await initBackend("cpu");
  if (!ready.ok) throw new Error(ready.error);
  dir = await mkdtemp(join(tmpdir(), "edgegym-portable-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function save(name: string, tokenizer: Tokenizer): Promise<string> {
  const model = createModel({ ...FRESH_MODEL_SHAPE, vocabSize: tokenizer.vocabSize }, { seed: 1 });
  if (!model.ok) throw new Error(model.error);
  const out = join(dir, name);
  const saved = await saveCheckpoint(out, { model: model.value, tokenizer, meta: { step: 0 } });
  model.value.dispose();
  if (!saved.ok) throw new Error(saved.error);
  return out;
}

const readJsonFile = async (path: string) => JSON.parse(await readFile(path, "utf8"));

/** The checks a byte-level folder must pass for transformers to give edgegym's ids. */
async function expectPortable(folder: string, vocabSize: number): Promise<void> {
  const config = JSON.parse(await readFile(join(folder, "config.json"), "utf8"));
  expect(config.model_type).toBe("qwen2");
  expect(config.vocab_size).toBe(vocabSize);
  const tc = await readJsonFile(join(folder, "tokenizer_config.json"));
  // qwen2 is a model type whose tokenizer_class transformers 5 overrides (with an NFC normaliser and
  // Qwen's split); an auto_map is what keeps the folder's tokenizer.json.
  expect(tc.tokenizer_class).toBe("PreTrainedTokenizerFast");
  expect(tc.auto_map).toEqual(AUTO_MAP);
  // A named unk_token is added as an id past the embedding rows when the vocabulary lacks it.
  expect(tc).toHaveProperty("unk_token", null);
  expect([tc.bos_token, tc.eos_token, tc.pad_token]).toEqual(["<|bos|>", "<|end|>", "<|pad|>"]);
  expect(tc.add_bos_token).toBe(false);
  const module = await readFile(join(folder, TOKENIZER_MODULE), "utf8");
  expect(module).toContain("class EdgegymTokenizer(PreTrainedTokenizerFast):");
  // With an __init__ of its own transformers would rebuild the pipeline instead of reading the file.
  expect(module).not.toContain("__init__");
  const tj = await readJsonFile(join(folder, "tokenizer.json"));
  expect(tj.normalizer).toBeNull();
  expect(tj.model.unk_token).toBeNull();
  // Rust numbers an added token absent from the model's vocab from the vocab's size: each must be in
  // it at its own id, and the ids must run 0..n-1 with no hole.
  const vocab = tj.model.vocab as Record<string, number>;
  for (const t of tj.added_tokens) expect(vocab[t.content], t.content).toBe(t.id);
  expect(
    Object.values(vocab)
      .sort((a, b) => a - b)
      .every((id, i) => id === i),
  ).toBe(true);
  expect(Object.keys(vocab)).toHaveLength(vocabSize);
  expect(tj.added_tokens.map((t: { content: string }) => t.content)).toEqual([...BYTE_SPECIALS]);
}

describe("a checkpoint's tokenizer files", () => {
  it("for the byte tokenizer keep transformers on tokenizer.json as written", async () => {
    await expectPortable(await save("byte", new ByteTokenizer()), 268);
  });

  it("for a learned BPE do too, and an older BPE folder without auto_map gains it when saved", async () => {
    const merges = trainBpe(pieceCounts(["the cat the cat sat sat on the mat mat 1973 1973"]), {
      merges: 12,
    });
    const files = bpeTokenizerFiles(merges);
    const old = join(dir, "old-bpe");
    await mkdir(old);
    const { auto_map: _, ...config } = files["tokenizer_config.json"];
    await writeTokenizerFiles(old, {
      "tokenizer.json": files["tokenizer.json"],
      "tokenizer_config.json": config,
    });
    const loaded = await loadTokenizer(old);
    if (!loaded.ok) throw new Error(loaded.error);
    expect(loaded.value.vocabSize).toBe(268 + merges.length);
    const folder = await save("bpe", loaded.value);
    await expectPortable(folder, 268 + merges.length);
    const tj = await readJsonFile(join(folder, "tokenizer.json"));
    expect(tj.model.merges).toHaveLength(merges.length);
  });

  it("for another tokenizer.json gain the auto_map under qwen2 only, unless they have their own", async () => {
    const folder = join(dir, "chatml");
    const config = { chat_template: chatTemplate("chatml"), eos_token: "<|im_end|>" };
    await writeTokenizerFolder(folder, CHATML_TOKENS, config);
    const loaded = await loadHfTokenizer(folder);
    if (!loaded.ok) throw new Error(loaded.error);
    const files = loaded.value.files;
    const qwen2 = portableFiles(files, "qwen2");
    expect(qwen2["tokenizer_config.json"]).toEqual({
      ...config,
      tokenizer_class: "PreTrainedTokenizerFast",
      auto_map: AUTO_MAP,
    });
    expect(qwen2[TOKENIZER_MODULE]).toContain("class EdgegymTokenizer(PreTrainedTokenizerFast):");
    expect(qwen2["tokenizer.json"]).toBe(files["tokenizer.json"]);
    for (const modelType of ["qwen3", "llama"]) expect(portableFiles(files, modelType)).toBe(files);
    const own = {
      ...files,
      "tokenizer_config.json": { ...config, auto_map: { AutoTokenizer: ["a.B", null] } },
    };
    expect(portableFiles(own, "qwen2")).toBe(own);
  });

  it("are what every committed recipes/checkpoints folder carries, byte for byte", async () => {
    const names = await readdir(RECIPES);
    expect(names.length).toBeGreaterThan(0);
    const fresh = join(dir, "fresh-files");
    await mkdir(fresh);
    await saveTokenizer(fresh, new ByteTokenizer(), "qwen2");
    for (const name of names) {
      const folder = join(RECIPES, name);
      await expectPortable(folder, 268);
      for (const file of ["tokenizer.json", "tokenizer_config.json", TOKENIZER_MODULE]) {
        expect(await readFile(join(folder, file), "utf8"), `${name}/${file}`).toBe(
          await readFile(join(fresh, file), "utf8"),
        );
      }
    }
  });
});
