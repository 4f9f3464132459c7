import * as tf from "@tensorflow/tfjs-core";

/** Swaps the last two axes. */
function transposeLast(x: tf.Tensor): tf.Tensor {
  const perm = x.shape.map((_, i) => i);
  const n = perm.length;
  [perm[n - 2], perm[n - 1]] = [perm[n - 1] as number, perm[n - 2] as number];
  return tf.transpose(x, perm);
}

/**
 * a @ b without transpose flags: tfjs-wasm sends only unflagged 2-D matmuls to XNNPACK (≈25 GFLOP/s
 * here); flagged ones take a naive loop (≈1 GFLOP/s), and a transpose costs far less than that.
 */
const product = (a: tf.Tensor, b: tf.Tensor): tf.Tensor => tf.matMul(a, b);

/**
 * a @ b (same rank, batch axes first) with a gradient, dA = dY @ bᵀ and dB = aᵀ @ dY, built from
 * the fast products above instead of tfjs's flagged MatMul gradient.
 */
export const matmul = tf.customGrad(((a: tf.Tensor, b: tf.Tensor, save: tf.GradSaveFunc) => {
  save([a, b]);
  return {
    value: product(a, b),
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [sa, sb] = saved as [tf.Tensor, tf.Tensor];
      return [product(dy, transposeLast(sb)), product(transposeLast(sa), dy)];
    },
  };
}) as never) as <T extends tf.Tensor>(a: T, b: tf.Tensor) => T;

/** a @ bᵀ through an explicit transpose (see {@link matmul}). */
export function matmulT<T extends tf.Tensor>(a: T, b: tf.Tensor): T {
  return matmul(a, transposeLast(b));
}
