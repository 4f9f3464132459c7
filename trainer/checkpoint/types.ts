import type { Result } from "../../shared/result.js";
import type { PolicyModel } from "../model/types.js";
import type { NamedAdam } from "../optim/named-adam.js";
import type { Tokenizer } from "../tokenizer/types.js";

/** Free-form metadata stored beside the weights (step, run id, algorithm, ...). */
export type CheckpointMeta = { step: number } & Record<string, unknown>;

/** How to load a checkpoint: `contextLength` replaces the one saved with it. */
export type LoadOptions = { contextLength?: number };

export interface Checkpoint {
  model: PolicyModel;
  tokenizer: Tokenizer;
  /** Adam moments and step count, to resume training exactly. */
  optimizer?: NamedAdam;
  meta: CheckpointMeta;
}

/**
 * Checkpoint I/O as a caller passes it in (the CLI's loads tfjs on first use; tests fake it), so
 * that what loads a policy does not pick the format itself.
 */
export type CheckpointIO = {
  saveCheckpoint: (dir: string, checkpoint: Checkpoint) => Promise<Result<void>>;
  loadCheckpoint: (dir: string, opts?: LoadOptions) => Promise<Result<Checkpoint>>;
};
