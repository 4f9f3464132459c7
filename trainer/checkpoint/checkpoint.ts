import { access, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { err, ok, type Result } from "../../shared/result.js";
import { Transformer } from "../model/transformer.js";
import { disposeWeights, type Weights } from "../model/weights.js";
import type { NamedAdam } from "../optim/named-adam.js";
import { loadTokenizer, saveTokenizer } from "../tokenizer/load-tokenizer.js";
import { json, readJson, readSafetensors, writeAtomic } from "./files.js";
import { fromHfConfig, toHfConfig } from "./hf-config.js";
import { exportHfTensors, importHfTensors } from "./hf-layout.js";
import { decodeOptimizerState, encodeOptimizerState, type OptimizerState } from "./optimizer-state.js";
import { encodeSafetensors, type StoredTensor } from "./safetensors.js";
import type { Checkpoint, CheckpointMeta, LoadOptions } from "./types.js";

/**
 * Saves a checkpoint folder: `config.json` (HF), `model.safetensors` (HF names and layout), the
 * tokenizer, `meta.json`, and with an optimizer `optimizer.json` + `optimizer.safetensors` (Adam's
 * step count and moments by variable name, see {@link encodeOptimizerState}).
 */
export async function saveCheckpoint(dir: string, ckpt: Checkpoint): Promise<Result<void>> {
  if (!(ckpt.model instanceof Transformer)) return err("only models made by createModel can be saved");
  const { config, weights } = ckpt.model;
  let state: OptimizerState | undefined;
  if (ckpt.optimizer) {
    const encoded = await encodeOptimizerState(ckpt.optimizer, weights);
    if (!encoded.ok) return encoded;
    state = encoded.value;
  }
  await mkdir(dir, { recursive: true });
  await writeAtomic(join(dir, "config.json"), json(toHfConfig(config)));
  await writeAtomic(
    join(dir, "model.safetensors"),
    encodeSafetensors(await exportHfTensors(weights, config), { format: "pt" }),
  );
  await saveTokenizer(dir, ckpt.tokenizer, config.arch);
  if (state) {
    await writeAtomic(join(dir, "optimizer.safetensors"), encodeSafetensors(state.tensors));
    await writeAtomic(join(dir, "optimizer.json"), json(state.file));
  }
  await writeAtomic(join(dir, "meta.json"), json(ckpt.meta));
  return ok(undefined);
}

/** `model.safetensors`, or the shards listed by `model.safetensors.index.json`. */
async function readWeights(dir: string): Promise<Result<Map<string, StoredTensor>>> {
  const index = await readJson(join(dir, "model.safetensors.index.json"));
  if (!index.ok) return readSafetensors(join(dir, "model.safetensors"));
  const files = new Set(Object.values((index.value.weight_map ?? {}) as Record<string, string>));
  const all = new Map<string, StoredTensor>();
  for (const file of files) {
    const part = await readSafetensors(join(dir, file));
    if (!part.ok) return part;
    for (const [k, v] of part.value) all.set(k, v);
  }
  return ok(all);
}

/** The saved Adam state for `weights`, or none when the folder has no `optimizer.json`. */
async function loadOptimizer(dir: string, weights: Weights): Promise<Result<NamedAdam | undefined>> {
  const path = join(dir, "optimizer.json");
  const present = await access(path).then(
    () => true,
    () => false,
  );
  if (!present) return ok(undefined);
  const file = await readJson(path);
  if (!file.ok) return file;
  const tensors = await readSafetensors(join(dir, "optimizer.safetensors"));
  if (!tensors.ok) return tensors;
  const adam = await decodeOptimizerState(file.value, tensors.value, weights);
  return adam.ok ? adam : err(`${dir}: ${adam.error}`);
}

/**
 * Loads a folder written by `saveCheckpoint`, or a Hugging Face Qwen2/Llama model folder, at the saved
 * context length or `opts.contextLength`.
 */
export async function loadCheckpoint(dir: string, opts: LoadOptions = {}): Promise<Result<Checkpoint>> {
  const cfgJson = await readJson(join(dir, "config.json"));
  if (!cfgJson.ok) return cfgJson;
  const config = fromHfConfig(cfgJson.value, opts);
  if (!config.ok) return err(`${dir}/config.json: ${config.error}`);
  const tensors = await readWeights(dir);
  if (!tensors.ok) return tensors;
  const weights = importHfTensors(tensors.value, config.value);
  if (!weights.ok) return err(`${dir}: ${weights.error}`);
  const tokenizer = await loadTokenizer(dir);
  const optimizer = tokenizer.ok ? await loadOptimizer(dir, weights.value) : tokenizer;
  if (!tokenizer.ok || !optimizer.ok) {
    disposeWeights(weights.value);
    return tokenizer.ok ? (optimizer as { ok: false; error: string }) : tokenizer;
  }
  const meta = await readJson(join(dir, "meta.json"));
  return ok({
    model: new Transformer(config.value, weights.value),
    tokenizer: tokenizer.value,
    ...(optimizer.value ? { optimizer: optimizer.value } : {}),
    meta: meta.ok ? (meta.value as CheckpointMeta) : { step: 0 },
  });
}
