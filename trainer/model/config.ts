import { z } from "zod";
import { err, ok, type Result } from "../../shared/result.js";
import type { ModelConfig } from "./types.js";

/**
 * Every field of a model config, for whatever a caller leaves out (`createModel` with a partial
 * config, the tests' small models, a Hugging Face config's missing fields): the benchmark's reference
 * shapes, small enough to train on two CPU cores.
 */
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

/**
 * The shape of a fresh byte-level model in `edgegym train`, `edgegym sft` and a recipe without `init`
 * (the defaults of their `model` field; every other field comes from {@link DEFAULT_MODEL_CONFIG}).
 * Half the reference width (64, d_ff 176), so RL iterations stay quick on two cores, and a longer
 * context (384) for multi-turn episodes. These are the values those commands have always resolved
 * to; the reference shapes stay as they are because tests and the benchmark build on them.
 */
export const FRESH_MODEL_SHAPE = {
  dModel: 64,
  nLayers: 2,
  nHeads: 4,
  nKvHeads: 4,
  dFf: 176,
  contextLength: 384,
} as const satisfies Partial<ModelConfig>;

const positiveInt = z.number().int().positive().optional();

/**
 * The `model` field of the train and SFT configs. A fresh model takes each field given and
 * {@link FRESH_MODEL_SHAPE} for the rest. A run with `init` keeps the checkpoint's shape: only
 * `contextLength` may differ from it (RoPE positions are computed, not learned, so the context
 * can grow or shrink), and any other field must equal the checkpoint's (trainer/checkpoint/load-policy.ts).
 */
export const ModelShape = z
  .object({
    dModel: positiveInt,
    nLayers: positiveInt,
    nHeads: positiveInt,
    nKvHeads: positiveInt,
    dFf: positiveInt,
    contextLength: positiveInt,
    /**
     * Folder holding the tokenizer of a fresh model (`tokenizer.json` + `tokenizer_config.json`, as
     * `edgegym tokenizer` writes them); its vocabulary sets the model's. Unset: the byte tokenizer.
     * A checkpoint always brings its own, so giving this with `init` is refused.
     */
    tokenizer: z.string().min(1).optional(),
  })
  .strict()
  .default({});
export type ModelShape = z.infer<typeof ModelShape>;

/** Fills defaults and checks that the shapes fit together. */
export function resolveModelConfig(partial: Partial<ModelConfig>): Result<ModelConfig> {
  const config = { ...DEFAULT_MODEL_CONFIG, ...partial };
  const positive = ["vocabSize", "dModel", "nLayers", "nHeads", "nKvHeads", "dFf", "contextLength"] as const;
  for (const key of positive) {
    if (!Number.isInteger(config[key]) || config[key] <= 0) return err(`${key} must be a positive integer`);
  }
  if (config.headDim === undefined && config.dModel % config.nHeads !== 0)
    return err("dModel must be divisible by nHeads");
  const hd = headDim(config);
  if (!Number.isInteger(hd) || hd <= 0 || hd % 2 !== 0)
    return err(`head dimension ${hd} must be an even positive integer`);
  if (config.nHeads % config.nKvHeads !== 0) return err("nHeads must be divisible by nKvHeads");
  return ok(config);
}

export const headDim = (c: ModelConfig): number => c.headDim ?? c.dModel / c.nHeads;
