import { err, ok, type Result } from "../../shared/result.js";
import { createModel } from "../model/create-model.js";
import type { Checkpoint, ModelConfig, PolicyModel } from "../model/types.js";
import type { RunIO } from "../run/run-io.js";
import { ByteTokenizer } from "../tokenizer/byte-tokenizer.js";
import type { Tokenizer } from "../tokenizer/types.js";

export type Policy = { model: PolicyModel; tokenizer: Tokenizer; checkpoint?: Checkpoint };

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
