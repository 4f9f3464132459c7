import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import { err, ok, type Result } from "../../shared/result.js";
import { Transformer } from "../model/transformer.js";
import { createAdam } from "../policy/optimizer-step.js";
import type { Checkpoint, CheckpointMeta } from "../policy/types.js";
import { loadTokenizer, saveTokenizer } from "../tokenizer/load-tokenizer.js";
import { fromHfConfig, toHfConfig } from "./hf-config.js";
import { exportHfTensors, importHfTensors } from "./hf-layout.js";
import { decodeSafetensors, encodeSafetensors, type StoredTensor } from "./safetensors.js";

/** Writes via a temporary name so a crash never leaves a half-written file under the real name. */
async function writeAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await writeFile(`${path}.partial`, data);
  await rename(`${path}.partial`, path);
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/**
 * Saves a checkpoint folder: `config.json` (HF), `model.safetensors` (HF names and layout), the
 * tokenizer, `meta.json`, and with an optimizer `optimizer.json` + `optimizer.safetensors`
 * (Adam's step count and moments `m.i`/`v.i`, i indexing `model.trainableVariables`).
 */
export async function saveCheckpoint(dir: string, ckpt: Checkpoint): Promise<Result<void>> {
  if (!(ckpt.model instanceof Transformer)) return err("only models made by createModel can be saved");
  await mkdir(dir, { recursive: true });
  const { config, weights } = ckpt.model;
  await writeAtomic(join(dir, "config.json"), json(toHfConfig(config)));
  await writeAtomic(
    join(dir, "model.safetensors"),
    encodeSafetensors(exportHfTensors(weights, config), { format: "pt" }),
  );
  await saveTokenizer(dir, ckpt.tokenizer);
  if (ckpt.optimizer) {
    const state = await ckpt.optimizer.getWeights();
    const [iter, ...moments] = state;
    const half = moments.length / 2;
    const tensors = new Map<string, StoredTensor>();
    tensors.set("iter", { shape: [], data: Float32Array.from(iter?.tensor.dataSync() ?? [0]) });
    moments.forEach((m, i) => {
      const name = i < half ? `m.${i}` : `v.${i - half}`;
      tensors.set(name, { shape: m.tensor.shape, data: m.tensor.dataSync() as Float32Array });
    });
    await writeAtomic(join(dir, "optimizer.safetensors"), encodeSafetensors(tensors));
    await writeAtomic(
      join(dir, "optimizer.json"),
      json({ type: "adam", moments: half, ...ckpt.optimizer.getConfig() }),
    );
  }
  await writeAtomic(join(dir, "meta.json"), json(ckpt.meta));
  return ok(undefined);
}

async function readJson(path: string): Promise<Result<Record<string, unknown>>> {
  try {
    return ok(JSON.parse(await readFile(path, "utf8")));
  } catch (e) {
    return err(`cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

async function readSafetensors(path: string): Promise<Result<Map<string, StoredTensor>>> {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(path));
  } catch (e) {
    return err(`cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const decoded = decodeSafetensors(bytes);
  return decoded.ok ? ok(decoded.value.tensors) : err(`${path}: ${decoded.error}`);
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

async function loadOptimizer(dir: string): Promise<Result<tf.AdamOptimizer | undefined>> {
  const cfg = await readJson(join(dir, "optimizer.json"));
  if (!cfg.ok) return ok(undefined);
  const c = cfg.value as {
    learningRate: number;
    beta1: number;
    beta2: number;
    epsilon: number;
    moments: number;
  };
  const state = await readSafetensors(join(dir, "optimizer.safetensors"));
  if (!state.ok) return state;
  const get = (name: string) => state.value.get(name) as StoredTensor;
  const adam = createAdam(c);
  const named = [{ name: "iter", tensor: tf.scalar(get("iter").data[0] as number) }];
  for (const kind of ["m", "v"]) {
    for (let i = 0; i < c.moments; i++) {
      const t = get(`${kind}.${i}`);
      named.push({ name: `${kind}.${i}`, tensor: tf.tensor(t.data, t.shape) as tf.Scalar });
    }
  }
  await adam.setWeights(named);
  tf.dispose(named.map((n) => n.tensor));
  return ok(adam);
}

/** Loads a folder written by `saveCheckpoint`, or a Hugging Face Qwen2/Llama model folder. */
export async function loadCheckpoint(dir: string): Promise<Result<Checkpoint>> {
  const cfgJson = await readJson(join(dir, "config.json"));
  if (!cfgJson.ok) return cfgJson;
  const config = fromHfConfig(cfgJson.value);
  if (!config.ok) return err(`${dir}/config.json: ${config.error}`);
  const tensors = await readWeights(dir);
  if (!tensors.ok) return tensors;
  const weights = importHfTensors(tensors.value, config.value);
  if (!weights.ok) return err(`${dir}: ${weights.error}`);
  const tokenizer = await loadTokenizer(dir);
  if (!tokenizer.ok) return tokenizer;
  const optimizer = await loadOptimizer(dir);
  if (!optimizer.ok) return optimizer;
  const meta = await readJson(join(dir, "meta.json"));
  return ok({
    model: new Transformer(config.value, weights.value),
    tokenizer: tokenizer.value,
    ...(optimizer.value ? { optimizer: optimizer.value } : {}),
    meta: meta.ok ? (meta.value as CheckpointMeta) : { step: 0 },
  });
}
