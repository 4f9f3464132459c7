import { err, ok, type Result } from "../../shared/result.js";
import type { ModelConfig } from "./types.js";

/** The reference shapes of the benchmark: small enough to train on two CPU cores. */
export const DEFAULT_MODEL_CONFIG: ModelConfig = {
  arch: "qwen2",
  vocabSize: 96,
  dModel: 128,
  nLayers: 2,
  nHeads: 4,
  nKvHeads: 4,
  dFf: 352,
  contextLength: 256,
  ropeTheta: 10_000,
  rmsNormEps: 1e-6,
  tieEmbeddings: true,
  valueHead: false,
};

/** Fills defaults and checks that the shapes fit together. */
export function resolveModelConfig(partial: Partial<ModelConfig>): Result<ModelConfig> {
  const config = { ...DEFAULT_MODEL_CONFIG, ...partial };
  const positive = ["vocabSize", "dModel", "nLayers", "nHeads", "nKvHeads", "dFf", "contextLength"] as const;
  for (const key of positive) {
    if (!Number.isInteger(config[key]) || config[key] <= 0) return err(`${key} must be a positive integer`);
  }
  if (config.dModel % config.nHeads !== 0) return err("dModel must be divisible by nHeads");
  if ((config.dModel / config.nHeads) % 2 !== 0) return err("head dimension (dModel / nHeads) must be even");
  if (config.nHeads % config.nKvHeads !== 0) return err("nHeads must be divisible by nKvHeads");
  return ok(config);
}

export const headDim = (c: ModelConfig): number => c.dModel / c.nHeads;
