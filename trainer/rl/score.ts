import * as tf from "@tensorflow/tfjs-core";
import { type Pass, planPasses, rowsOf } from "../model/passes.js";
import type { PolicyModel } from "../model/types.js";
import type { TrainBatch } from "./batch.js";

/**
 * What the policy before the update says about a batch, in its row layout `[R, T]` (0 past each
 * row's pass width): the old log-probabilities every ratio is taken against, the value head's
 * values when the method has a critic, and the frozen reference's log-probabilities for the KL.
 */
export type Scores = { logprobs: number[][]; values?: number[][]; refLogprobs?: number[][] };

export type ScoreOptions = {
  model: PolicyModel;
  reference?: PolicyModel;
  /** Read the value head too (a method with a critic). */
  values: boolean;
  /** Budget of one forward pass in float32 elements (model/passes.ts). */
  passElements: number;
};

/** Scores every row of `batch` under the current weights, without gradients, in passes of bounded size. */
export function scoreBatch(batch: TrainBatch, opts: ScoreOptions): Scores {
  const empty = () => batch.sequences.map(() => new Array<number>(batch.width).fill(0));
  const out: Scores = {
    logprobs: empty(),
    ...(opts.values ? { values: empty() } : {}),
    ...(opts.reference ? { refLogprobs: empty() } : {}),
  };
  const place = (into: number[][], pass: Pass, rows: number[][]) => {
    pass.rows.forEach((r, i) => {
      into[r] = [...(rows[i] as number[]), ...(into[r] as number[]).slice(pass.width)];
    });
  };
  const all = batch.sequences.map((_, r) => r);
  for (const pass of planPasses(batch.lengths, all, opts.model.config, opts.passElements)) {
    tf.tidy(() => {
      const ids = tf.tensor2d(rowsOf(batch.ids, pass), undefined, "int32");
      const targets = tf.tensor2d(rowsOf(batch.targets, pass), undefined, "int32");
      const ev = opts.model.evaluate(ids, targets, { values: opts.values });
      place(out.logprobs, pass, ev.logprobs.arraySync());
      if (out.values && ev.values) place(out.values, pass, ev.values.arraySync());
      if (opts.reference && out.refLogprobs)
        place(out.refLogprobs, pass, opts.reference.logprobsOf(ids, targets).arraySync());
    });
  }
  return out;
}
