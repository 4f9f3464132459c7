import * as tf from "@tensorflow/tfjs-core";
import { headDim } from "./config.js";
import { kernelsOf, offsetsOf, recording, type WasmBackendInternals } from "./kernels/batch-matmul.js";
import { matmul } from "./matmul.js";
import { inverseFrequencies } from "./rope-frequencies.js";
import type { ModelConfig } from "./types.js";

/** cos and sin for each position and column of a q or k projection. */
export interface RopePair {
  cos: tf.Tensor;
  sin: tf.Tensor;
}

/**
 * Rotary position tables for the q (`H·hd` wide) and k (`KV·hd` wide) projections. HF's rotate-half
 * form is `x·cos + rotate_half(x)·sin`; rotate_half is linear, a product with the `[hd, hd]` table
 * `rotate` per head ({@link rotateHalf}: a quarter of the work of folding it into `[D, D]` projection
 * weights, which this did before). The attention scale 1/√hd is folded into the q tables.
 */
export interface RopeTables {
  /** `[contextLength, H·hd]`. */
  q: RopePair;
  /** `[contextLength, KV·hd]`. */
  k: RopePair;
  /** `[hd, hd]` with `x @ R = rotate_half(x) = [−x₂, x₁]`, and its transpose (for the gradient). */
  rotate: tf.Tensor2D;
  rotateT: tf.Tensor2D;
  /** Host copies, to build per-row tables for decoding without a gather kernel per step. */
  host: { q: HostTable; k: HostTable };
}

interface HostTable {
  cos: Float32Array;
  sin: Float32Array;
  width: number;
}

function hostTable(c: ModelConfig, heads: number, scale: number): HostTable {
  const hd = headDim(c);
  const half = hd / 2;
  const width = heads * hd;
  const inv = inverseFrequencies(c);
  const cos = new Float32Array(c.contextLength * width);
  const sin = new Float32Array(c.contextLength * width);
  for (let p = 0; p < c.contextLength; p++) {
    for (let col = 0; col < width; col++) {
      // Frequencies are shared by the two halves: inv_freq[i], i = j mod hd/2.
      const angle = p * (inv[(col % hd) % half] as number);
      cos[p * width + col] = Math.cos(angle) * scale;
      sin[p * width + col] = Math.sin(angle) * scale;
    }
  }
  return { cos, sin, width };
}

const device = (t: HostTable, rows: number): RopePair => ({
  cos: tf.tensor2d(t.cos, [rows, t.width]),
  sin: tf.tensor2d(t.sin, [rows, t.width]),
});

export function ropeTables(c: ModelConfig): RopeTables {
  const hd = headDim(c);
  const half = hd / 2;
  const q = hostTable(c, c.nHeads, 1 / Math.sqrt(hd));
  const k = hostTable(c, c.nKvHeads, 1);
  const rotate = new Float32Array(hd * hd);
  for (let j = 0; j < half; j++) {
    rotate[(j + half) * hd + j] = -1;
    rotate[j * hd + j + half] = 1;
  }
  return {
    q: device(q, c.contextLength),
    k: device(k, c.contextLength),
    rotate: tf.tensor2d(rotate, [hd, hd]),
    rotateT: tf.tidy(() => tf.transpose(tf.tensor2d(rotate, [hd, hd]))),
    host: { q, k },
  };
}

/** The first `t` positions, for a full-sequence pass. */
export function ropePrefix(r: RopeTables, t: number): { q: RopePair; k: RopePair } {
  const rows = (p: RopePair) => ({
    cos: tf.slice(p.cos, [0, 0], [t, -1]),
    sin: tf.slice(p.sin, [0, 0], [t, -1]),
  });
  return { q: rows(r.q), k: rows(r.k) };
}

/**
 * `[positions.length / length, length, width]` tables: one position per token, `length` tokens per row
 * (1 when decoding, the padded prompt length when prefilling). Copied from the host tables, which is
 * far cheaper than a gather kernel on tfjs-wasm.
 */
export function ropeRows(
  r: RopeTables,
  positions: ArrayLike<number>,
  length = 1,
): { q: RopePair; k: RopePair } {
  const rows = (t: HostTable): RopePair => {
    const cos = new Float32Array(positions.length * t.width);
    const sin = new Float32Array(positions.length * t.width);
    for (let i = 0; i < positions.length; i++) {
      const p = positions[i] as number;
      cos.set(t.cos.subarray(p * t.width, (p + 1) * t.width), i * t.width);
      sin.set(t.sin.subarray(p * t.width, (p + 1) * t.width), i * t.width);
    }
    const shape: [number, number, number] = [positions.length / length, length, t.width];
    return { cos: tf.tensor3d(cos, shape), sin: tf.tensor3d(sin, shape) };
  };
  return { q: rows(r.host.q), k: rows(r.host.k) };
}

/** `[R, n·hd]` → the same columns each multiplied by `rotate` per head: `W @ blockdiag(R)`. */
export function rotateColumns(w: tf.Tensor2D, rotate: tf.Tensor2D): tf.Tensor2D {
  const [rows, cols] = w.shape;
  const hd = rotate.shape[0];
  return tf.reshape(matmul(tf.reshape(w, [(rows * cols) / hd, hd]), rotate), [rows, cols]);
}

/**
 * rotate_half of every head of `x` (`[..., n·hd]`): x @ blockdiag(R), with the gradient dy @ Rᵀ only
 * (R is a constant, so no product is spent on its gradient).
 */
export function rotateHalf(x: tf.Tensor, r: RopeTables): tf.Tensor {
  const hd = r.rotate.shape[0];
  if (!recording()) return tf.reshape(tf.matMul(tf.reshape(x, [-1, hd]), r.rotate), x.shape);
  const op = tf.customGrad(((xi: tf.Tensor) => ({
    value: tf.reshape(tf.matMul(tf.reshape(xi, [-1, hd]), r.rotate), xi.shape),
    gradFunc: (dy: tf.Tensor) => tf.reshape(tf.matMul(tf.reshape(dy, [-1, hd]), r.rotateT), dy.shape),
  })) as never) as (x: tf.Tensor) => tf.Tensor;
  return op(x);
}

/**
 * RoPE of every head of `y` (`[..., n·hd]`): y·cos + rotate_half(y)·sin, the `table` broadcasting
 * along y's leading rows. On tfjs-wasm one SIMD pass (simd-pointwise.ts's `rope_fwd`, and `rope_bwd` for
 * the gradient) does what took a product, two multiplies and an add, with the same values.
 */
export function applyRope(y: tf.Tensor, table: RopePair, r: RopeTables): tf.Tensor {
  if (!fusable(y, table, r)) return tf.add(tf.mul(y, table.cos), tf.mul(rotateHalf(y, r), table.sin));
  const run = (x: tf.Tensor, t: tf.Tensor[], backward: boolean) =>
    tf
      .engine()
      .runKernel(KERNEL, { x, cos: t[0] as tf.Tensor, sin: t[1] as tf.Tensor }, { hd: hdOf(r), backward });
  if (!recording()) return run(y, [table.cos, table.sin], false) as tf.Tensor;
  // The tables are saved: the forward pass's tidy may dispose them before the gradient runs.
  const op = tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
    save([table.cos, table.sin]);
    return {
      value: run(x, [table.cos, table.sin], false),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => run(dy, saved, true),
    };
  }) as never) as (x: tf.Tensor) => tf.Tensor;
  return op(y);
}

const KERNEL = "EdgegymRope";
const hdOf = (r: RopeTables) => r.rotate.shape[0];

/** The kernel's case: float32 on tfjs-wasm, half a head in whole f32x4 lanes, tables repeating by row. */
function fusable(y: tf.Tensor, table: RopePair, r: RopeTables): boolean {
  const width = y.shape.at(-1) as number;
  const rows = (t: tf.Tensor) => t.size / (t.shape.at(-1) as number);
  return (
    tf.getBackend() === "wasm" &&
    y.dtype === "float32" &&
    hdOf(r) % 8 === 0 &&
    [table.cos, table.sin].every((t) => t.shape.at(-1) === width && rows(y) % rows(t) === 0) &&
    table.cos.shape.join() === table.sin.shape.join() &&
    kernelsOf(tf.backend() as unknown as WasmBackendInternals) !== null
  );
}

tf.registerKernel({
  kernelName: KERNEL,
  backendName: "wasm",
  kernelFunc: ({ inputs, backend, attrs }) => {
    const be = backend as unknown as WasmBackendInternals;
    const { x, cos, sin } = inputs as { x: tf.TensorInfo; cos: tf.TensorInfo; sin: tf.TensorInfo };
    const { hd, backward } = attrs as unknown as { hd: number; backward: boolean };
    const width = x.shape.at(-1) as number;
    const out = be.makeOutput([...x.shape], "float32");
    const [px, pc, ps, po] = offsetsOf(be, x, cos, sin, out);
    const kernels = kernelsOf(be) as NonNullable<ReturnType<typeof kernelsOf>>;
    const rows = tf.util.sizeFromShape(x.shape) / width;
    const tableRows = tf.util.sizeFromShape(cos.shape) / width;
    (backward ? kernels.rope_bwd : kernels.rope_fwd)(px, pc, ps, po, rows, tableRows, 4 * width, 2 * hd);
    return out;
  },
});

export function disposeRope(t: RopeTables): void {
  tf.dispose([t.q.cos, t.q.sin, t.k.cos, t.k.sin, t.rotate, t.rotateT]);
}
