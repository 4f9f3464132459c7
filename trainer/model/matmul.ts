import * as tf from "@tensorflow/tfjs-core";
import { product, recording } from "./kernels/batch-matmul.js";

/** Swaps the last two axes. */
function transposeLast(x: tf.Tensor): tf.Tensor {
  const perm = x.shape.map((_, i) => i);
  const n = perm.length;
  [perm[n - 2], perm[n - 1]] = [perm[n - 1] as number, perm[n - 2] as number];
  return tf.transpose(x, perm);
}

/**
 * a @ b (same rank, batch axes first) with a gradient, dA = dY @ bᵀ and dB = aᵀ @ dY. On tfjs-wasm
 * all three run in batch-matmul.ts's SIMD loops, register-blocked 4 rows × 8 columns (≈25 GFLOP/s,
 * XNNPACK's speed here, without XNNPACK re-packing a new right operand on every backward product and
 * without transposing a); elsewhere they are unflagged tf.matMul products with explicit transposes.
 */
const matmulGrad = tf.customGrad(((a: tf.Tensor, b: tf.Tensor, save: tf.GradSaveFunc) => {
  save([a, b]);
  return {
    value: product("nn", a, b),
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [sa, sb] = saved as [tf.Tensor, tf.Tensor];
      return [product("nn", dy, transposeLast(sb)), product("tn", sa, dy)];
    },
  };
}) as never) as <T extends tf.Tensor>(a: T, b: tf.Tensor) => T;

export function matmul<T extends tf.Tensor>(a: T, b: tf.Tensor): T {
  return (recording() ? matmulGrad(a, b) : product("nn", a, b)) as T;
}

/** a @ bᵀ through an explicit transpose (see {@link matmul}). */
export function matmulT<T extends tf.Tensor>(a: T, b: tf.Tensor): T {
  return matmul(a, transposeLast(b));
}
