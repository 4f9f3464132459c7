import * as tf from "@tensorflow/tfjs-core";

/**
 * Places per-step env rewards on tokens: r_{b,t} = R_{b,k} where t = end_{b,k} is step k's last
 * response token, 0 elsewhere. `stepRewards` R [B, S]; `stepEnds` [B, S] (int32, −1 for a missing
 * step); result [B, T].
 */
export async function placeStepRewards(
  stepRewards: tf.Tensor2D,
  stepEnds: tf.Tensor2D,
  tokens: number,
): Promise<tf.Tensor2D> {
  const r = await stepRewards.array();
  const ends = await stepEnds.array();
  const out = r.map(() => new Array<number>(tokens).fill(0));
  ends.forEach((row, b) => {
    row.forEach((t, k) => {
      if (t < 0 || t >= tokens) return;
      const target = out[b] as number[];
      target[t] = (target[t] as number) + (r[b]?.[k] ?? 0);
    });
  });
  return tf.tensor2d(out, [r.length, tokens]);
}

/**
 * PRIME-style leave-one-out normalisation of process rewards inside each group of n rollouts:
 *   r̄_j = mean of rollout j's step rewards,  R'_{b,k} = R_{b,k}·n/(n−1) − Σ_{j∈g} r̄_j/(n−1),
 * which is R_{b,k} − (Σ_{j≠b} r̄_j)/(n−1) when rollout b's steps all carry the same reward. Steps with
 * `stepMask` 0 stay 0; a singleton group is left as is. Shapes [B, S].
 */
export async function primeNormalise(
  stepRewards: tf.Tensor2D,
  stepMask: tf.Tensor2D,
  groups: readonly number[],
): Promise<tf.Tensor2D> {
  const r = await stepRewards.array();
  const m = await stepMask.array();
  const means = r.map((row, b) => {
    const live = row.filter((_, k) => (m[b]?.[k] ?? 0) > 0);
    return live.length === 0 ? 0 : live.reduce((x, y) => x + y, 0) / live.length;
  });
  const size = new Map<number, number>();
  const total = new Map<number, number>();
  groups.forEach((g, b) => {
    size.set(g, (size.get(g) ?? 0) + 1);
    total.set(g, (total.get(g) ?? 0) + (means[b] as number));
  });
  const out = r.map((row, b) => {
    const g = groups[b] as number;
    const n = size.get(g) ?? 1;
    if (n < 2) return row.slice();
    const sum = total.get(g) ?? 0;
    return row.map((v, k) => ((m[b]?.[k] ?? 0) > 0 ? (v * n) / (n - 1) - sum / (n - 1) : 0));
  });
  return tf.tensor2d(out, stepRewards.shape);
}
