import * as tf from "@tensorflow/tfjs-core";
import "@tensorflow/tfjs-backend-wasm";
import { kernelsOf, offsetsOf, type WasmBackendInternals } from "./batch-matmul.js";
import type { BinaryOp } from "./simd-pointwise.js";

/**
 * tfjs-wasm's Add, Sub and Multiply of float32 tensors in simd-pointwise.ts's f32x4 loops, for the shapes
 * a model step makes: equal shapes, b one row repeated (a bias, a norm weight, a rotary table) or b
 * one value per row (an RMS scale), and a scalar. tfjs-wasm's loops took ≈4 ns an element (0.4-0.8 ms
 * for a `[768, 128]` operand), which added up to a third of a training step. Each output is the same
 * single IEEE operation, so values are bit for bit tfjs's. Other shapes and dtypes keep tfjs's kernels.
 */

const OPS: Record<string, { op: BinaryOp; commutes: boolean }> = {
  Add: { op: "add", commutes: true },
  Sub: { op: "sub", commutes: false },
  Multiply: { op: "mul", commutes: true },
};

type Plan = { shape: "same" | "row" | "col"; rows: number; width: number; swap: boolean };

const size = (s: readonly number[]) => s.reduce((x, y) => x * y, 1);
/** `s` without leading 1s. */
const squeezed = (s: readonly number[]) =>
  s.slice(
    Math.max(
      0,
      s.findIndex((d) => d !== 1),
    ),
  );

/** How b broadcasts against a full-size a, if it is one of the SIMD shapes. */
function planFor(a: readonly number[], b: readonly number[]): Omit<Plan, "swap"> | null {
  const n = size(a);
  if (size(b) === n && squeezed(a).join() === squeezed(b).join())
    return n % 4 === 0 ? { shape: "same", rows: 1, width: n } : null;
  const last = a.at(-1) ?? 1;
  if (size(b) === 1) return n % 4 === 0 ? { shape: "col", rows: 1, width: n } : null;
  const tail = squeezed(b);
  if (tail.length <= a.length && a.slice(a.length - tail.length).join() === tail.join()) {
    const width = size(tail);
    return width % 4 === 0 ? { shape: "row", rows: n / width, width } : null;
  }
  const isColumn = b.length === a.length && b.at(-1) === 1 && b.slice(0, -1).join() === a.slice(0, -1).join();
  return isColumn && last % 4 === 0 ? { shape: "col", rows: n / last, width: last } : null;
}

for (const [name, { op, commutes }] of Object.entries(OPS)) {
  const original = tf.getKernel(name, "wasm");
  if (!original) continue;
  tf.unregisterKernel(name, "wasm");
  tf.registerKernel({
    ...original,
    kernelFunc: (args) => {
      const { a, b } = args.inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
      const be = args.backend as unknown as WasmBackendInternals;
      const simd = a.dtype === "float32" && b.dtype === "float32" ? kernelsOf(be) : null;
      const direct = simd && size(a.shape) >= size(b.shape) ? planFor(a.shape, b.shape) : null;
      const swapped = simd && !direct && commutes ? planFor(b.shape, a.shape) : null;
      const plan = direct ?? swapped;
      if (!simd || !plan) return original.kernelFunc(args);
      const [x, y] = direct ? [a, b] : [b, a];
      // The broadcast shape: x's elements, with any leading 1s y has beyond x's rank.
      const out = be.makeOutput(tf.backend_util.assertAndGetBroadcastShape(a.shape, b.shape), "float32");
      const [px, py, po] = offsetsOf(be, x, y, out);
      if (plan.shape === "same") simd[`${op}_same`](px, py, po, 4 * plan.width);
      else simd[`${op}_${plan.shape}`](px, py, po, plan.rows, 4 * plan.width);
      return out;
    },
  });
}
