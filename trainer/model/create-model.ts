import { err, ok, type Result } from "../../shared/result.js";
import { BYTE_VOCAB_SIZE } from "../tokenizer/byte-tokenizer.js";
import { resolveModelConfig } from "./config.js";
import { Transformer } from "./transformer.js";
import type { ModelConfig, PolicyModel } from "./types.js";

/**
 * A freshly initialised decoder. `config` is completed with defaults (the vocabulary of the byte
 * tokenizer unless given); call `initBackend` first.
 */
export function createModel(config: Partial<ModelConfig>, opts: { seed: number }): Result<PolicyModel> {
  const resolved = resolveModelConfig({ vocabSize: BYTE_VOCAB_SIZE, ...config });
  if (!resolved.ok) return err(resolved.error);
  return ok(Transformer.create(resolved.value, opts.seed));
}
