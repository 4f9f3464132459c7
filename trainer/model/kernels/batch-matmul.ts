import * as tf from "@tensorflow/tfjs-core";
import "@tensorflow/tfjs-backend-wasm";
import { instantiateSimd, type SimdKernels } from "./simd-module.js";

/**
 * Batched products for attention (`[..., m, k]` operands with the same batch axes) with gradients.
 * On tfjs-wasm they run in {@link instantiateSimd}'s f32x4 loops inside tfjs's own memory (tfjs sends
 * batched products to a scalar loop at ≈2 GFLOP/s); elsewhere, or for shapes those loops do not take,
 * they are tf.matMul with explicit transposes, as before.
 */

const KERNEL = "EdgegymBatchMatMul";
type Mode = "nn" | "nt" | "tn";

export interface WasmBackendInternals {
  wasm: { asm: { memory: WebAssembly.Memory } };
  dataIdMap: { get(id: tf.DataId): { memoryOffset: number } };
  makeOutput(shape: number[], dtype: "float32"): tf.TensorInfo;
}

/** Where each tensor's data lies in tfjs-wasm's memory (byte offsets), in the order given. */
export function offsetsOf<const T extends readonly tf.TensorInfo[]>(
  be: WasmBackendInternals,
  ...tensors: T
): { [K in keyof T]: number } {
  return tensors.map((t) => be.dataIdMap.get(t.dataId).memoryOffset) as { [K in keyof T]: number };
}

const bound = new WeakMap<WebAssembly.Memory, SimdKernels | null>();
export function kernelsOf(backend: WasmBackendInternals): SimdKernels | null {
  const memory = backend.wasm?.asm?.memory;
  if (!(memory instanceof WebAssembly.Memory)) return null;
  if (!bound.has(memory)) bound.set(memory, instantiateSimd(memory));
  return bound.get(memory) ?? null;
}

/** Output rows, columns and the shared length of a product in `mode` (b's first `bRows` rows). */
function dims(
  mode: Mode,
  a: readonly number[],
  b: readonly number[],
  bRows = b.at(-2) as number,
): { m: number; n: number; k: number } {
  const [ar, ac] = a.slice(-2) as [number, number];
  const br = bRows;
  const bc = b.at(-1) as number;
  if (mode === "nn") return { m: ar, k: ac, n: bc };
  if (mode === "nt") return { m: ar, k: ac, n: br };
  return { m: ac, k: ar, n: bc };
}

/**
 * Rows of b per pass of the blocked loop. A 4 × 8 block walks b's rows at a stride of a whole row;
 * past about this many the strip no longer stays in L1 and the loop waits on memory: one
 * [64, 4864] · [4864, 896] product went from 7 to 35 GFLOP/s in chunks of 64 (scratch measurement on
 * this machine's EPYC), and the weight gradients' [128, 768]ᵀ products from 21 to 32.
 */
const K_CHUNK = 64;

/** [start, length] chunks of k, each adding to the sums the last left; one chunk (even k = 0) if short. */
function kChunks(k: number): [number, number][] {
  if (k <= 2 * K_CHUNK) return [[0, k]];
  return Array.from({ length: Math.ceil(k / K_CHUNK) }, (_, c) => [
    c * K_CHUNK,
    Math.min(K_CHUNK, k - c * K_CHUNK),
  ]);
}

/** Whether the SIMD loops take this product: lanes need 4 | the vectorised length. */
const simdShape = (mode: Mode, d: { n: number; k: number }) =>
  mode === "nt" ? d.k % 4 === 0 : d.n % 4 === 0;

tf.registerKernel({
  kernelName: KERNEL,
  backendName: "wasm",
  kernelFunc: ({ inputs, backend, attrs }) => {
    const be = backend as unknown as WasmBackendInternals;
    const { a, b } = inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
    const { mode, bRows } = attrs as { mode: Mode; bRows: number };
    const { m, n, k } = dims(mode, a.shape, b.shape, bRows);
    // b's batch stride counts all its rows, of which the product reads the first bRows.
    const bStride = 4 * (b.shape.at(-1) as number) * (b.shape.at(-2) as number);
    const batchShape = a.shape.slice(0, -2);
    const batch = batchShape.reduce((x, y) => x * y, 1);
    const out = be.makeOutput([...batchShape, m, n], "float32");
    const simd = kernelsOf(be) as SimdKernels;
    const [pa, pb, po] = offsetsOf(be, a, b, out);
    const aBatch = 4 * m * k;
    if (mode === "nt") {
      const dot = n % 4 === 0 ? simd.dot4 : simd.dot1;
      dot(pa, pb, po, batch, m, n, 4 * k, aBatch, bStride, 4 * k, 4 * k);
    } else {
      // nn: A[i, k] at i·k + k; tn: A is [k, m] and A[i, k] (its transpose) at k·m + i.
      const [aRow, aCol] = mode === "nn" ? [4 * k, 4] : [4, 4 * m];
      const narrow = n % 16 === 0 ? simd.axpy1x4 : simd.axpy1x1;
      // Blocks of 4 rows × 8 columns where they fit, else × 4 (a vocabulary of 268); one product's
      // rows split when m is not ÷ 4.
      const [first, next] = n % 8 === 0 ? [simd.axpy4x2, simd.axpy4x2acc] : [simd.axpy4x1, simd.axpy4x1acc];
      const blocked = batch === 1 ? m - (m % 4) : m % 4 === 0 ? m : 0;
      for (const [k0, kc] of blocked > 0 ? kChunks(k) : []) {
        (k0 === 0 ? first : next)(
          pa + k0 * aCol,
          pb + k0 * 4 * n,
          po,
          batch,
          blocked,
          4 * n,
          kc,
          aBatch,
          bStride,
          aRow,
          aCol,
          4 * n,
        );
      }
      if (blocked < m) {
        const [a0, o0] = [pa + blocked * aRow, po + blocked * 4 * n];
        narrow(a0, pb, o0, batch, m - blocked, 4 * n, k, aBatch, bStride, aRow, aCol, 4 * n);
      }
    }
    return out;
  },
});

/** Swaps the last two axes. */
function transposeLast(x: tf.Tensor): tf.Tensor {
  const perm = x.shape.map((_, i) => i);
  const n = perm.length;
  [perm[n - 2], perm[n - 1]] = [perm[n - 1] as number, perm[n - 2] as number];
  return tf.transpose(x, perm);
}

/**
 * One product without a gradient: the SIMD kernel when it applies, else tf.matMul. With `bRows`, only
 * the first `bRows` rows of b take part (a KV cache allocated for more positions than filled so far).
 */
export function product(mode: Mode, a: tf.Tensor, b: tf.Tensor, bRows?: number): tf.Tensor {
  if (a.shape.length !== b.shape.length || a.shape.slice(0, -2).some((d, i) => d !== b.shape[i]))
    throw new Error(`batch axes differ: ${a.shape} and ${b.shape}`);
  const rows = bRows ?? (b.shape.at(-2) as number);
  const d = dims(mode, a.shape, b.shape, rows);
  const useSimd =
    tf.getBackend() === "wasm" &&
    simdShape(mode, d) &&
    kernelsOf(tf.backend() as unknown as WasmBackendInternals) !== null;
  if (useSimd) return tf.engine().runKernel(KERNEL, { a, b }, { mode, bRows: rows }) as tf.Tensor;
  if (rows !== b.shape.at(-2)) {
    const begin = b.shape.map(() => 0);
    const size = b.shape.map((x, i) => (i === b.shape.length - 2 ? rows : x));
    return product(mode, a, tf.slice(b, begin, size));
  }
  // Unflagged products, as tfjs-wasm's flagged ones are slower still (see matmul.ts).
  if (mode === "nn") return tf.matMul(a, b);
  if (mode === "nt") return tf.matMul(a, transposeLast(b));
  return tf.matMul(transposeLast(a), b);
}

/**
 * Whether a gradient is being recorded. Outside tf.grads (sampling, scoring) the products skip
 * tf.customGrad's bookkeeping, which cost about a tenth of a decoding step; the values are the same.
 */
export const recording = (): boolean => (tf.engine() as unknown as { isTapeOn(): boolean }).isTapeOn();

/** a @ b for `[..., m, k]` and `[..., k, n]`, with dA = dY·bᵀ and dB = aᵀ·dY. */
const batchMatmulGrad = tf.customGrad(((a: tf.Tensor, b: tf.Tensor, save: tf.GradSaveFunc) => {
  save([a, b]);
  return {
    value: product("nn", a, b),
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [sa, sb] = saved as [tf.Tensor, tf.Tensor];
      return [product("nt", dy, sb), product("tn", sa, dy)];
    },
  };
}) as never) as <T extends tf.Tensor>(a: T, b: tf.Tensor) => T;

/** a @ bᵀ for `[..., m, k]` and `[..., n, k]`, with dA = dY·b and dB = dYᵀ·a. */
const batchMatmulTGrad = tf.customGrad(((a: tf.Tensor, b: tf.Tensor, save: tf.GradSaveFunc) => {
  save([a, b]);
  return {
    value: product("nt", a, b),
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [sa, sb] = saved as [tf.Tensor, tf.Tensor];
      return [product("nn", dy, sb), product("tn", dy, sa)];
    },
  };
}) as never) as <T extends tf.Tensor>(a: T, b: tf.Tensor) => T;

export function batchMatmul<T extends tf.Tensor>(a: T, b: tf.Tensor): T {
  return (recording() ? batchMatmulGrad(a, b) : product("nn", a, b)) as T;
}

export function batchMatmulT<T extends tf.Tensor>(a: T, b: tf.Tensor): T {
  return (recording() ? batchMatmulTGrad(a, b) : product("nt", a, b)) as T;
}

/**
 * Σ over the rows of `m` (`[N, C]` → `[C]`): the gradient of a row broadcast (a bias, a norm weight).
 * On tfjs-wasm a product 1ᵀ·m in the SIMD loops; tfjs's Sum over the first axis transposes first.
 */
export function columnSums(m: tf.Tensor2D): tf.Tensor1D {
  const [n, c] = m.shape;
  if (tf.getBackend() !== "wasm" || c % 4 !== 0) return tf.sum(m, 0);
  return tf.tidy(() => tf.reshape(product("tn", tf.ones([n, 1]), m), [c]) as tf.Tensor1D);
}

/** x + b for `[N, C]` x and `[C]` b, with db = {@link columnSums}(dy). */
export const addRow = (x: tf.Tensor2D, b: tf.Tensor1D): tf.Tensor2D =>
  recording() ? addRowGrad(x, b) : tf.add(x, b);
const addRowGrad = tf.customGrad(((x: tf.Tensor2D, b: tf.Tensor1D) => ({
  value: tf.add(x, b),
  gradFunc: (dy: tf.Tensor2D) => [dy, columnSums(dy)],
})) as never) as (x: tf.Tensor2D, b: tf.Tensor1D) => tf.Tensor2D;

/** x · w for `[N, C]` x and `[C]` w, with dw = {@link columnSums}(dy · x). */
export const mulRow = (x: tf.Tensor2D, w: tf.Tensor1D): tf.Tensor2D =>
  recording() ? mulRowGrad(x, w) : tf.mul(x, w);
const mulRowGrad = tf.customGrad(((x: tf.Tensor2D, w: tf.Tensor1D, save: tf.GradSaveFunc) => {
  save([x, w]);
  return {
    value: tf.mul(x, w),
    gradFunc: (dy: tf.Tensor2D, saved: tf.Tensor[]) => {
      const [sx, sw] = saved as [tf.Tensor2D, tf.Tensor1D];
      return [tf.mul(dy, sw), columnSums(tf.mul(dy, sx))];
    },
  };
}) as never) as (x: tf.Tensor2D, w: tf.Tensor1D) => tf.Tensor2D;
