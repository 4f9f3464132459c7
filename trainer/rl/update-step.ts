import * as tf from "@tensorflow/tfjs-core";
import { clipGradNorm, entropyBonus, klLoss, policyLosses, valueLoss } from "../algos/index.js";
import { rowsOf } from "../model/passes.js";
import type { ModelConfig } from "../model/types.js";
import { lossTask, type Note, type ShardModels } from "../parallel/shard-task.js";
import { shardPasses } from "../parallel/shards.js";
import type { TrainBatch } from "./batch.js";
import type { TrainConfig } from "./config.js";
import type { Scores } from "./score.js";
import type { Targets } from "./targets.js";

/** The loss fields of a run's config, and whether its method trains the value head. */
export type LossSettings = Pick<
  TrainConfig,
  | "policyLoss"
  | "clipLow"
  | "clipHigh"
  | "dualClip"
  | "aggregation"
  | "klCoef"
  | "klMode"
  | "entropyCoef"
  | "valueCoef"
  | "valueClip"
  | "valueTrunk"
> & { critic: boolean };

/** The loss settings of `cfg` for a method with or without a critic. */
export function lossSettings(cfg: TrainConfig, critic: boolean): LossSettings {
  const { policyLoss, clipLow, clipHigh, dualClip, aggregation } = cfg;
  const { klCoef, klMode, entropyCoef, valueCoef, valueClip, valueTrunk } = cfg;
  const terms = { klCoef, klMode, entropyCoef, valueCoef, valueClip, valueTrunk, critic };
  return { policyLoss, clipLow, clipHigh, dualClip, aggregation, ...terms };
}

/**
 * One pass of a minibatch's rows as plain arrays `[n, width]`, so that it can be posted to a worker
 * thread: inputs, targets and mask, what scoring and the targets gave for these rows, and the pass's
 * share of what each loss term averages over in the minibatch (tokens for token metrics; tokens or
 * non-empty rows for the aggregated terms, as the aggregation counts; value tokens for the value loss).
 */
export type RlPassInput = {
  ids: number[][];
  targets: number[][];
  mask: number[][];
  oldLogprobs: number[][];
  advantages: number[][];
  refLogprobs?: number[][];
  /** With a critic: V_old, the value targets and where they apply. */
  value?: { old: number[][]; targets: number[][]; mask: number[][] };
  share: { tokens: number; agg: number; value: number };
  loss: LossSettings;
};

/**
 * The loss of one pass, weighted by its shares so that the passes' gradients sum to the minibatch's:
 *   L = share_agg·(L_policy + β·L_kl − entropy bonus) + share_value·c_v·L_value,
 * the KL term only with `klMode: loss` (with `reward` it is in the advantages, and only noted here).
 */
export function rlPassLoss(models: ShardModels, input: RlPassInput, note: Note): tf.Scalar {
  const s = input.loss;
  const { share } = input;
  const ids = tf.tensor2d(input.ids, undefined, "int32");
  const targets = tf.tensor2d(input.targets, undefined, "int32");
  const mask = tf.tensor2d(input.mask);
  const ev = models.policy.evaluate(ids, targets, {
    entropy: s.entropyCoef > 0,
    values: s.critic,
    detachValues: s.valueTrunk === "detached",
  });

  const pl = policyLosses[s.policyLoss](
    {
      logprobs: ev.logprobs,
      oldLogprobs: tf.tensor2d(input.oldLogprobs),
      advantages: tf.tensor2d(input.advantages),
      mask,
    },
    { clipLow: s.clipLow, clipHigh: s.clipHigh, dualClip: s.dualClip, aggregation: s.aggregation },
  );
  note("losses/policy", pl.loss, share.agg);
  for (const [k, v] of Object.entries(pl.metrics)) note(k, v, share.tokens);
  let loss: tf.Scalar = pl.loss;

  if (s.klCoef > 0 && input.refLogprobs) {
    const kl = klLoss(ev.logprobs, tf.tensor2d(input.refLogprobs), mask, 1, s.aggregation);
    note("losses/kl", kl, share.agg);
    if (s.klMode === "loss") loss = tf.add(loss, tf.mul(kl, s.klCoef));
  }
  if (ev.entropy) {
    const entropy = tf.div(tf.sum(tf.mul(ev.entropy, mask)), tf.maximum(tf.sum(mask), 1));
    note("losses/entropy", entropy, share.tokens);
    loss = tf.add(loss, entropyBonus(ev.entropy, mask, s.entropyCoef, s.aggregation));
  }
  loss = tf.mul(loss, share.agg);

  if (s.critic && ev.values && input.value) {
    const v = input.value;
    const vl = valueLoss(
      ev.values,
      tf.tensor2d(v.old),
      tf.tensor2d(v.targets),
      tf.tensor2d(v.mask),
      s.valueClip,
      "token-mean",
    );
    note("losses/value", vl, share.value);
    loss = tf.add(loss, tf.mul(vl, s.valueCoef * share.value));
  }
  return loss;
}

/** {@link rlPassLoss} as a task worker threads can find by name (trainer/parallel/shard-task.ts). */
export const rlPassTask = lossTask(import.meta.url, "rlPassTask", rlPassLoss);

/**
 * Clips the minibatch's summed gradient to a global norm and applies it; returns the norm before
 * clipping. The gradients named in `apart` (a detached value head's) are clipped to the same bound as a
 * group of their own, and their norm is returned as `apartNorm`.
 */
export async function applyGradients(
  optimizer: tf.Optimizer,
  grads: tf.NamedTensorMap,
  maxGradNorm: number,
  apart: ReadonlySet<string> = new Set(),
): Promise<{ norm: number; apartNorm?: number }> {
  const groups: [tf.NamedTensorMap, tf.NamedTensorMap] = [{}, {}];
  for (const [name, g] of Object.entries(grads)) groups[apart.has(name) ? 1 : 0][name] = g;
  const main = await clipGradNorm(groups[0], maxGradNorm);
  const side = apart.size > 0 ? await clipGradNorm(groups[1], maxGradNorm) : undefined;
  optimizer.applyGradients({ ...main.grads, ...side?.grads });
  tf.dispose([...Object.values(grads), ...Object.values(main.grads), ...Object.values(side?.grads ?? {})]);
  return side ? { norm: main.norm, apartNorm: side.norm } : { norm: main.norm };
}

/** What the loss terms of a set of rows average over. */
type Counts = { tokens: number; liveRows: number; valueTokens: number };

function countsOf(rows: readonly number[], mask: number[][], valueMask: number[][]): Counts {
  const sum = (row: number[] | undefined) => (row ?? []).reduce((a, b) => a + b, 0);
  const out: Counts = { tokens: 0, liveRows: 0, valueTokens: 0 };
  for (const r of rows) {
    const n = sum(mask[r]);
    out.tokens += n;
    out.liveRows += n > 0 ? 1 : 0;
    out.valueTokens += sum(valueMask[r]);
  }
  return out;
}

/**
 * The minibatch `rows` as pass inputs of bounded size for `threads` threads: the rows split into
 * shards of about equal cost (trainer/parallel/shards.ts), each planned into passes, each pass with
 * its share of the whole minibatch's counts, so that the passes' losses sum to the one-pass loss and
 * their gradients to the minibatch's wherever they run. Passes that train nothing are left out; a
 * minibatch that trains nothing gives none.
 */
export function minibatchShards(
  data: { batch: TrainBatch; scores: Scores; targets: Targets },
  rows: readonly number[],
  loss: LossSettings,
  model: ModelConfig,
  passElements: number,
  threads: number,
): RlPassInput[][] {
  const { batch, scores, targets } = data;
  const trains = (n: Counts) => n.tokens > 0 || (loss.critic && n.valueTokens > 0);
  const total = countsOf(rows, batch.mask, targets.valueMask);
  if (!trains(total)) return [];
  const shards = shardPasses(batch.lengths, rows, model, passElements, threads);
  return shards.map((passes) =>
    passes.flatMap((pass) => {
      const n = countsOf(pass.rows, batch.mask, targets.valueMask);
      if (!trains(n)) return [];
      const tokens = n.tokens / Math.max(1, total.tokens);
      const input: RlPassInput = {
        ids: rowsOf(batch.ids, pass),
        targets: rowsOf(batch.targets, pass),
        mask: rowsOf(batch.mask, pass),
        oldLogprobs: rowsOf(scores.logprobs, pass),
        advantages: rowsOf(targets.advantages, pass),
        ...(scores.refLogprobs ? { refLogprobs: rowsOf(scores.refLogprobs, pass) } : {}),
        ...(loss.critic
          ? {
              value: {
                old: rowsOf(scores.values ?? [], pass),
                targets: rowsOf(targets.valueTargets, pass),
                mask: rowsOf(targets.valueMask, pass),
              },
            }
          : {}),
        share: {
          tokens,
          agg: loss.aggregation === "token-mean" ? tokens : n.liveRows / Math.max(1, total.liveRows),
          value: n.valueTokens / Math.max(1, total.valueTokens),
        },
        loss,
      };
      return [input];
    }),
  );
}
