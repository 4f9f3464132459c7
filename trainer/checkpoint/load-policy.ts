import { access } from "node:fs/promises";
import { join } from "node:path";
import { err, ok, type Result } from "../../shared/result.js";
import { FRESH_MODEL_SHAPE, type ModelShape } from "../model/config.js";
import { createModel } from "../model/create-model.js";
import type { PolicyModel } from "../model/types.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import { loadTokenizer } from "../tokenizer/load-tokenizer.js";
import type { Tokenizer } from "../tokenizer/types.js";
import type { Checkpoint, CheckpointIO } from "./types.js";

export type Policy = { model: PolicyModel; tokenizer: Tokenizer; checkpoint?: Checkpoint };

/**
 * The policy to train or evaluate: a checkpoint when `init` is given, else a fresh model of `shape`
 * over {@link FRESH_MODEL_SHAPE}, with the byte tokenizer or the one in `shape.tokenizer`. Fresh
 * models carry a value head so that any algorithm can run on them later. A checkpoint takes
 * `shape.contextLength` when given; any other field of `shape` must equal the checkpoint's, since a
 * trained model's widths cannot change, and saying otherwise is refused rather than ignored.
 */
export async function loadPolicy(
  init: string | undefined,
  shape: ModelShape,
  seed: number,
  io: CheckpointIO,
): Promise<Result<Policy>> {
  const { tokenizer: tokenizerDir, ...dims } = shape;
  if (init === undefined) {
    const tokenizer =
      tokenizerDir === undefined ? ok(new ByteTokenizer()) : await freshTokenizer(tokenizerDir);
    if (!tokenizer.ok) return tokenizer;
    const vocabSize = tokenizer.value.vocabSize;
    const model = createModel({ ...FRESH_MODEL_SHAPE, ...dims, vocabSize, valueHead: true }, { seed });
    if (!model.ok) return err(model.error);
    return ok({ model: model.value, tokenizer: tokenizer.value });
  }
  if (tokenizerDir !== undefined)
    return err(`model.tokenizer is for a fresh model: the checkpoint ${init} brings its own tokenizer`);
  const { contextLength, ...fixed } = dims;
  const loaded = await io.loadCheckpoint(init, contextLength === undefined ? {} : { contextLength });
  if (!loaded.ok) return err(`cannot load checkpoint ${init}: ${loaded.error}`);
  const { model, tokenizer } = loaded.value;
  for (const [key, wanted] of Object.entries(fixed) as [keyof typeof fixed, number | undefined][]) {
    const actual = model.config[key];
    if (wanted === undefined || wanted === actual) continue;
    model.dispose();
    return err(
      `model.${key} ${wanted} differs from the checkpoint ${init} (${key} ${actual}): a checkpoint's shape ` +
        "is fixed, only model.contextLength can change",
    );
  }
  return ok({ model, tokenizer, checkpoint: loaded.value });
}

/** A tokenizer folder named by the user: one without `tokenizer.json` is refused, not replaced by bytes. */
async function freshTokenizer(dir: string): Promise<Result<Tokenizer>> {
  const present = await access(join(dir, "tokenizer.json")).then(
    () => true,
    () => false,
  );
  if (!present) return err(`model.tokenizer ${dir} holds no tokenizer.json`);
  const loaded = await loadTokenizer(dir);
  return loaded.ok ? loaded : err(`model.tokenizer ${dir}: ${loaded.error}`);
}

/**
 * What of a fresh-model shape applies to a checkpoint: its context length. A recipe's `sft.model`
 * shapes the fresh model when it has no `base` (and may come from a recipe it extends), so with a
 * base or a previous stage's checkpoint the pipeline passes on only this part.
 */
export const checkpointShape = (shape: ModelShape): ModelShape =>
  shape.contextLength === undefined ? {} : { contextLength: shape.contextLength };
