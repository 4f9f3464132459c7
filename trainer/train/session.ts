import { appendFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Variable } from "@tensorflow/tfjs-core";
import type { Manifest } from "../../shared/protocol.js";
import { rng } from "../../shared/random.js";
import { err, ok, type Result } from "../../shared/result.js";
import { initBackend } from "../backend/backend.js";
import type { HubTarget } from "../client/credentials.js";
import { EnvClient } from "../client/env-client.js";
import { resolveEnv } from "../client/resolve-env.js";
import { createModel } from "../model/create-model.js";
import type { BackendName, Checkpoint, ModelConfig, PolicyModel, Tokenizer } from "../policy/types.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";

/** How commands report: a log line, and checkpoint I/O (the policy package's safetensors format). */
export type RunIO = {
  log: (line: string) => void;
  saveCheckpoint: (dir: string, checkpoint: Checkpoint) => Promise<Result<void>>;
  loadCheckpoint: (dir: string) => Promise<Result<Checkpoint>>;
  /** The hub of `hub://` envs when the caller knows it (the pipeline); else the environment's. */
  hub?: HubTarget;
};

export type Policy = { model: PolicyModel; tokenizer: Tokenizer; checkpoint?: Checkpoint };

/** Picks the backend and logs which one runs (and why faster ones were passed over). */
export async function startBackend(name: BackendName | undefined, io: RunIO): Promise<Result<string>> {
  const backend = await initBackend(name);
  if (!backend.ok) return err(`no tfjs backend: ${backend.error}`);
  const skipped = backend.value.skipped.length > 0 ? ` (skipped: ${backend.value.skipped.join("; ")})` : "";
  io.log(`backend: ${backend.value.name}${skipped}`);
  return ok(backend.value.name);
}

/**
 * The policy to train or evaluate: a checkpoint when `init` is given, else a fresh byte-level model
 * of `shape`. Fresh models carry a value head so that any algorithm can run on them later.
 */
export async function loadPolicy(
  init: string | undefined,
  shape: Partial<ModelConfig>,
  seed: number,
  io: RunIO,
): Promise<Result<Policy>> {
  if (init !== undefined) {
    const loaded = await io.loadCheckpoint(init);
    if (!loaded.ok) return err(`cannot load checkpoint ${init}: ${loaded.error}`);
    const { model, tokenizer } = loaded.value;
    return ok({ model, tokenizer, checkpoint: loaded.value });
  }
  const model = createModel({ ...shape, valueHead: true }, { seed });
  if (!model.ok) return err(model.error);
  return ok({ model: model.value, tokenizer: new ByteTokenizer() });
}

/** An env client for `--env` plus its manifest (tools, split sizes). */
export async function connectEnv(
  spec: string,
  concurrency: number,
  env: NodeJS.ProcessEnv = process.env,
  hub?: HubTarget,
): Promise<Result<{ client: EnvClient; manifest: Manifest }>> {
  const transport = await resolveEnv(spec, { connections: concurrency, env, ...(hub ? { hub } : {}) });
  if (!transport.ok) return err(transport.error);
  const client = new EnvClient(transport.value, { concurrency });
  const manifest = await client.manifest();
  if (!manifest.ok) {
    await client.close();
    return err(`cannot read the manifest of ${spec}: ${manifest.error.detail}`);
  }
  return ok({ client, manifest: manifest.value });
}

/** `count` task indices of a split of `size`, drawn with a seeded PRNG. */
export function sampleTasks(size: number, count: number, seed: number): number[] {
  const r = rng(seed);
  return Array.from({ length: count }, () => r.int(0, Math.max(0, size - 1)));
}

/** A run folder: config.json now, then appendable metrics.jsonl and trajectories.jsonl. */
export async function openRunDir(dir: string, config: unknown) {
  await mkdir(join(dir, "checkpoints"), { recursive: true });
  await writeFile(join(dir, "config.json"), `${JSON.stringify(config, null, 2)}\n`);
  await writeFile(join(dir, "metrics.jsonl"), "");
  await writeFile(join(dir, "trajectories.jsonl"), "");
  return {
    metrics: (row: Record<string, number>) =>
      appendFile(join(dir, "metrics.jsonl"), `${JSON.stringify(row)}\n`),
    trajectories: (lines: string[]) =>
      lines.length === 0
        ? Promise.resolve()
        : appendFile(join(dir, "trajectories.jsonl"), `${lines.join("\n")}\n`),
    checkpoint: (name: string) => join(dir, "checkpoints", name),
  };
}

/** A frozen copy of the policy's current weights: the reference of the KL term. */
export function frozenCopy(model: PolicyModel, seed: number): Result<PolicyModel> {
  const copy = createModel(model.config, { seed });
  if (!copy.ok) return copy;
  copy.value.trainableVariables.forEach((v, i) => {
    v.assign(model.trainableVariables[i] as Variable);
  });
  return copy;
}
