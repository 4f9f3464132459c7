import * as tf from "@tensorflow/tfjs-core";
import { maskedWhiten } from "./aggregate.js";

/**
 * What every advantage estimator reads. Rows are episodes: row b holds the response tokens of all of
 * episode b's steps, in order (prompt and observation tokens are not in it), padded to T.
 */
export type AdvantageInput = {
  /** Per-token rewards r [B, T]: each step's env reward at its last token, minus any KL penalty. */
  tokenRewards: tf.Tensor2D;
  /** m [B, T]: 1 where the token is a response token, 0 for padding. */
  mask: tf.Tensor2D;
  /** Group of each row (the n rollouts forked from one task share a group); length B. */
  groups: readonly number[];
  /** Value head at each response token V [B, T]; `gae` needs it. */
  values?: tf.Tensor2D;
  /** Value head at each step's last prompt token V [B, S]; `steppo` needs it. */
  stepValues?: tf.Tensor2D;
  /** Step index k of each token [B, T] (int32), −1 for padding; `steppo` needs it. */
  tokenStep?: tf.Tensor2D;
};

export type AdvantageOptions = {
  /** Discount γ. */
  gamma: number;
  /** GAE λ. */
  lambda: number;
  /** Added to the group std before dividing (GRPO). */
  eps: number;
  /** Whiten the advantages over the batch's masked-in tokens (GAE, StepPO); the others fix this themselves. */
  whiten: boolean;
};

export type AdvantageOutput = {
  /** A [B, T], 0 where m = 0. */
  advantages: tf.Tensor2D;
  /** Value targets [B, T] (A + V for GAE; the advantages themselves for critic-free estimators). */
  returns: tf.Tensor2D;
  /** StepPO only: value targets per step [B, S], read at each step's last prompt token. */
  stepReturns?: tf.Tensor2D;
};

export const DEFAULT_ADVANTAGE_OPTIONS: AdvantageOptions = { gamma: 1, lambda: 1, eps: 1e-6, whiten: true };

/**
 * Outcome score per row: s_b = Σ_t r_{b,t}·m_{b,t}. Every estimator reads its tensors with await, as
 * the whole trainer does: webgpu in Node has no synchronous read.
 */
async function scores(input: AdvantageInput): Promise<number[]> {
  const s = tf.tidy(() => tf.sum(tf.mul(input.tokenRewards, input.mask), 1));
  const out = Array.from(await s.data());
  s.dispose();
  return out;
}

function groupMembers(groups: readonly number[]): Map<number, number[]> {
  const members = new Map<number, number[]>();
  groups.forEach((g, b) => {
    const list = members.get(g) ?? [];
    list.push(b);
    members.set(g, list);
  });
  return members;
}

/** Broadcasts a per-row advantage a [B] onto the row's tokens: A_{b,t} = a_b·m_{b,t}. */
function broadcast(perRow: number[], mask: tf.Tensor2D): AdvantageOutput {
  const advantages = tf.tidy(() => tf.mul(tf.tensor2d(perRow, [perRow.length, 1]), mask) as tf.Tensor2D);
  return { advantages, returns: tf.clone(advantages) };
}

/**
 * Per-row group-normalised score. With s̄_g the group mean and σ_g the unbiased group std:
 * GRPO a_b = (s_b − s̄_g)/(σ_g + ε); Dr.GRPO a_b = s_b − s̄_g. A singleton group keeps s_b (σ = 1).
 */
async function groupNormalised(
  input: AdvantageInput,
  opts: AdvantageOptions,
  divideByStd: boolean,
): Promise<number[]> {
  const s = await scores(input);
  const out = s.slice();
  for (const rows of groupMembers(input.groups).values()) {
    if (rows.length < 2) continue;
    const vals = rows.map((b) => s[b] as number);
    const mean = vals.reduce((x, y) => x + y, 0) / vals.length;
    const std = Math.sqrt(vals.reduce((x, y) => x + (y - mean) ** 2, 0) / (vals.length - 1));
    for (const b of rows) out[b] = ((s[b] as number) - mean) / (divideByStd ? std + opts.eps : 1);
  }
  return out;
}

/** GRPO: A_{b,t} = (s_b − mean_g s)/(std_g s + ε)·m_{b,t}. */
export async function grpo(input: AdvantageInput, opts: AdvantageOptions): Promise<AdvantageOutput> {
  return broadcast(await groupNormalised(input, opts, true), input.mask);
}

/** Dr.GRPO: A_{b,t} = (s_b − mean_g s)·m_{b,t}, no division by the group std (removes difficulty bias). */
export async function drGrpo(input: AdvantageInput, opts: AdvantageOptions): Promise<AdvantageOutput> {
  return broadcast(await groupNormalised(input, opts, false), input.mask);
}

/** RLOO: A_{b,t} = (s_b − (Σ_{j∈g, j≠b} s_j)/(n_g − 1))·m_{b,t}; a singleton group keeps s_b. */
export async function rloo(input: AdvantageInput): Promise<AdvantageOutput> {
  const s = await scores(input);
  const out = s.slice();
  for (const rows of groupMembers(input.groups).values()) {
    if (rows.length < 2) continue;
    const total = rows.reduce((acc, b) => acc + (s[b] as number), 0);
    for (const b of rows) out[b] = (s[b] as number) - (total - (s[b] as number)) / (rows.length - 1);
  }
  return broadcast(out, input.mask);
}

/**
 * REINFORCE++: discounted return-to-go over the row's tokens, G_t = r_t + γ·G_{t+1} (padding skipped),
 * then whitened over the whole batch: A = whiten(G).
 */
export async function reinforcePlusPlus(
  input: AdvantageInput,
  opts: AdvantageOptions,
): Promise<AdvantageOutput> {
  const r = await input.tokenRewards.array();
  const m = await input.mask.array();
  const returns = r.map((row, b) => {
    const out = row.map(() => 0);
    let running = 0;
    for (let t = row.length - 1; t >= 0; t--) {
      if ((m[b]?.[t] ?? 0) === 0) continue;
      running = (row[t] as number) + opts.gamma * running;
      out[t] = running;
    }
    return out;
  });
  const g = tf.tensor2d(returns);
  const advantages = maskedWhiten(g, input.mask);
  return { advantages, returns: g };
}

/**
 * REINFORCE++ with a group baseline: a_b = s_b − mean_g s, broadcast to the row's tokens, then whitened
 * over the batch: A = whiten(a_b·m).
 */
export async function reinforcePlusPlusBaseline(
  input: AdvantageInput,
  opts: AdvantageOptions,
): Promise<AdvantageOutput> {
  const centred = await groupNormalised(input, opts, false);
  const raw = broadcast(centred, input.mask);
  const advantages = maskedWhiten(raw.advantages, input.mask);
  raw.advantages.dispose();
  return { advantages, returns: raw.returns };
}

/**
 * Asymmetric weighting of advantages A [B, T]: A'_{b,t} = A_{b,t} if A_{b,t} ≥ 0, else w·A_{b,t}.
 * w = 1 is the estimator unchanged; w = 0 reinforces only what beat its baseline (RAFT/ReST-style).
 */
export function weighNegativeAdvantages(advantages: tf.Tensor2D, w: number): tf.Tensor2D {
  return tf.tidy(() => tf.where(tf.less(advantages, 0), tf.mul(advantages, w), advantages) as tf.Tensor2D);
}
