import * as tf from "@tensorflow/tfjs-core";
import type { AdvantageInput, AdvantageOptions, AdvantageOutput } from "./advantages.js";
import { maskedWhiten } from "./aggregate.js";

/**
 * The GAE recursion over one row's masked-in positions, from the last to the first:
 * δ_t = r_t + γ·V_{t'} − V_t and A_t = δ_t + γλ·A_{t'}, where t' is the next masked-in position
 * (V_{t'} = A_{t'} = 0 past the end). Masked-out positions are skipped, not treated as terminal.
 * Returns A and the value targets R = A + V.
 */
export function gaeRows(
  rewards: number[][],
  values: number[][],
  mask: number[][],
  gamma: number,
  lambda: number,
): { advantages: number[][]; returns: number[][] } {
  const advantages = rewards.map((row) => row.map(() => 0));
  const returns = rewards.map((row) => row.map(() => 0));
  rewards.forEach((row, b) => {
    let nextValue = 0;
    let nextAdv = 0;
    for (let t = row.length - 1; t >= 0; t--) {
      if ((mask[b]?.[t] ?? 0) === 0) continue;
      const v = values[b]?.[t] ?? 0;
      const delta = (row[t] as number) + gamma * nextValue - v;
      nextAdv = delta + gamma * lambda * nextAdv;
      nextValue = v;
      (advantages[b] as number[])[t] = nextAdv;
      (returns[b] as number[])[t] = nextAdv + v;
    }
  });
  return { advantages, returns };
}

/** Token-level GAE with a value head: A [B, T] from r, V [B, T] by `gaeRows`, optionally whitened. */
export async function gae(input: AdvantageInput, opts: AdvantageOptions): Promise<AdvantageOutput> {
  if (input.values === undefined) throw new Error("gae needs the value head's values [B, T]");
  const out = gaeRows(
    await input.tokenRewards.array(),
    await input.values.array(),
    await input.mask.array(),
    opts.gamma,
    opts.lambda,
  );
  const raw = tf.tensor2d(out.advantages, input.mask.shape);
  const advantages = opts.whiten ? maskedWhiten(raw, input.mask) : raw;
  if (opts.whiten) raw.dispose();
  return { advantages, returns: tf.tensor2d(out.returns, input.mask.shape) };
}

/**
 * StepPO: GAE over steps instead of tokens. The step reward is the sum of its tokens' rewards,
 * R_{b,k} = Σ_{t: step(t)=k} r_{b,t}; V_{b,k} is the value head read at step k's last prompt token;
 * δ_k = R_k + γ·V_{k+1} − V_k, A_k = δ_k + γλ·A_{k+1}; every token of step k gets A_k:
 * A_{b,t} = A_{b,step(t)}·m_{b,t}. Value targets per step are A_k + V_k.
 */
export async function steppo(input: AdvantageInput, opts: AdvantageOptions): Promise<AdvantageOutput> {
  if (input.stepValues === undefined || input.tokenStep === undefined) {
    throw new Error("steppo needs stepValues [B, S] and tokenStep [B, T]");
  }
  const [rows, steps] = input.stepValues.shape;
  const r = await input.tokenRewards.array();
  const k = await input.tokenStep.array();
  const stepRewards = Array.from({ length: rows }, () => new Array<number>(steps).fill(0));
  const stepMask = Array.from({ length: rows }, () => new Array<number>(steps).fill(0));
  k.forEach((row, b) => {
    row.forEach((step, t) => {
      if (step < 0 || step >= steps) return;
      (stepRewards[b] as number[])[step] = ((stepRewards[b] as number[])[step] as number) + (r[b]?.[t] ?? 0);
      (stepMask[b] as number[])[step] = 1;
    });
  });
  const out = gaeRows(stepRewards, await input.stepValues.array(), stepMask, opts.gamma, opts.lambda);
  const toTokens = (perStep: number[][]) =>
    k.map((row, b) => row.map((step) => (step < 0 ? 0 : (perStep[b]?.[step] ?? 0))));
  const raw = tf.tensor2d(toTokens(out.advantages), input.mask.shape);
  const advantages = opts.whiten ? maskedWhiten(raw, input.mask) : raw;
  if (opts.whiten) raw.dispose();
  return {
    advantages,
    returns: tf.tensor2d(toTokens(out.returns), input.mask.shape),
    stepReturns: tf.tensor2d(out.returns, [rows, steps]),
  };
}
