import { z } from "zod";
import { BACKENDS } from "../backend/names.js";
import { ModelShape } from "../model/config.js";

/** `edgegym sft`: expert demonstrations through `/v1/expert`, trained on assistant tokens only. */
export const SftConfig = z.strictObject({
  /** `--env`: an env URL, `hub://owner/name@version` or `local:<name>`. */
  env: z.string().default("local:calculator"),
  /** Split the demonstrations come from (the expert is usually refused on test). */
  split: z.string().default("train"),
  backend: z.enum(BACKENDS).optional(),
  seed: z.number().int().default(1),
  /** Checkpoint to continue from; unset starts a fresh model of `model`'s shape. */
  init: z.string().optional(),
  /** Run folder; the result is `<out>/checkpoints/final`. */
  out: z.string().default("runs/sft"),
  /** Expert episodes to collect. */
  episodes: z.number().int().positive().default(256),
  /** Passes over the demonstrations. */
  epochs: z.number().int().positive().default(4),
  /** Step rows per gradient step. */
  batchRows: z.number().int().positive().default(16),
  lr: z.number().positive().default(2e-3),
  maxGradNorm: z.number().positive().default(1),
  /**
   * Cores to use: the main thread plus `workers − 1` worker threads with copies of the model, each
   * computing the gradient of its share of a step's rows (trainer/parallel). 1 runs on the main thread.
   */
  workers: z.number().int().positive().default(1),
  /** Client-side cap on an expert episode's steps. */
  maxSteps: z.number().int().positive().default(6),
  /**
   * Steps of each demonstration to learn (indexes from 0, e.g. `[1]`); unset learns every step. Rows
   * that hold none of them are not trained on, so a hard decision can be drilled on its own rows.
   */
  learnSteps: z.array(z.number().int().nonnegative()).min(1).optional(),
  renderTools: z.boolean().default(false),
  /** Shape of a fresh model (see `edgegym train`). */
  model: ModelShape,
});
export type SftConfig = z.infer<typeof SftConfig>;
