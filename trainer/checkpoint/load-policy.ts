import { err, ok, type Result } from "../../shared/result.js";
import { FRESH_MODEL_SHAPE, type ModelShape } from "../model/config.js";
import { createModel } from "../model/create-model.js";
import type { Checkpoint, PolicyModel } from "../model/types.js";
import type { RunIO } from "../run/run-io.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import type { Tokenizer } from "../tokenizer/types.js";

export type Policy = { model: PolicyModel; tokenizer: Tokenizer; checkpoint?: Checkpoint };

/**
 * The policy to train or evaluate: a checkpoint when `init` is given, else a fresh byte-level model
 * of `shape` over {@link FRESH_MODEL_SHAPE}. Fresh models carry a value head so that any algorithm
 * can run on them later. A checkpoint takes `shape.contextLength` when given; any other field of
 * `shape` must equal the checkpoint's, since a trained model's widths cannot change, and saying
 * otherwise is refused rather than ignored.
 */
export async function loadPolicy(
  init: string | undefined,
  shape: ModelShape,
  seed: number,
  io: RunIO,
): Promise<Result<Policy>> {
  if (init === undefined) {
    const model = createModel({ ...FRESH_MODEL_SHAPE, ...shape, valueHead: true }, { seed });
    if (!model.ok) return err(model.error);
    return ok({ model: model.value, tokenizer: new ByteTokenizer() });
  }
  const { contextLength, ...fixed } = shape;
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

/**
 * What of a fresh-model shape applies to a checkpoint: its context length. A recipe's `sft.model`
 * shapes the fresh model when it has no `base` (and may come from a recipe it extends), so with a
 * base or a previous stage's checkpoint the pipeline passes on only this part.
 */
export const checkpointShape = (shape: ModelShape): ModelShape =>
  shape.contextLength === undefined ? {} : { contextLength: shape.contextLength };
