import * as tf from "@tensorflow/tfjs-core";
import { initBackend } from "../backend/backend.js";
import { createModel } from "../model/create-model.js";
import type { PolicyModel } from "../model/types.js";

/**
 * What every webgpu parity case shares (webgpu-parity.ts, webgpu-parity-steps.ts): the same tiny model
 * on both backends (same config, same seed, so the same initial weights), its batch, and how
 * differences are measured and judged. Tolerances: float32 sums in another order differ by a few ulps
 * per term; 1e-5 absolute on values of order 1 (logits, log-probabilities) and 1e-5 relative to the
 * largest element on gradients is ~100 ulps (Adam's updated weights: 1e-4), far below what a wrong
 * kernel gives (≥ 1e-2).
 */

export interface ParityResult {
  figures: Record<string, number>;
  /** What was out of tolerance; empty when the backends agree. */
  failures: string[];
}

const TINY = {
  vocabSize: 32,
  dModel: 32,
  nLayers: 2,
  nHeads: 4,
  nKvHeads: 2,
  dFf: 48,
  contextLength: 16,
};
export const IDS = [
  [1, 2, 3, 4, 5, 6],
  [7, 8, 9, 10, 11, 0],
];
export const TARGETS = [
  [2, 3, 4, 5, 6, 7],
  [8, 9, 10, 11, 12, 0],
];
export const MASK = [
  [0, 0, 1, 1, 1, 1],
  [0, 0, 1, 1, 1, 0],
];
export const TOL = 1e-5;

export function tiny(): PolicyModel {
  const made = createModel(TINY, { seed: 5 });
  if (!made.ok) throw new Error(made.error);
  return made.value;
}

async function use(name: "cpu" | "webgpu"): Promise<void> {
  const ready = await initBackend(name);
  if (!ready.ok) throw new Error(ready.error);
}

/** Runs `body` on cpu, then on webgpu; returns both results. */
export async function onBoth<T>(body: () => Promise<T>): Promise<{ cpu: T; gpu: T }> {
  await use("cpu");
  const cpu = await body();
  await use("webgpu");
  const gpu = await body();
  return { cpu, gpu };
}

/** The largest |a − b| over all elements, and the largest |a|. */
export function gap(a: ArrayLike<number>, b: ArrayLike<number>): { diff: number; scale: number } {
  if (a.length !== b.length) return { diff: Number.POSITIVE_INFINITY, scale: 1 };
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < a.length; i++) {
    diff = Math.max(diff, Math.abs((a[i] as number) - (b[i] as number)));
    scale = Math.max(scale, Math.abs(a[i] as number));
  }
  return { diff, scale };
}

/** Figures, and a failure for each that is not below its bound. */
export function judge(
  figures: Record<string, number>,
  bounds: Record<string, number>,
  extra: string[] = [],
): ParityResult {
  const failures = Object.entries(bounds)
    .filter(([name, bound]) => !((figures[name] ?? Number.NaN) < bound))
    .map(([name, bound]) => `${name} ${figures[name]} not below ${bound}`);
  return { figures, failures: [...failures, ...extra] };
}

export const flat = async (ts: readonly tf.Tensor[]) =>
  Float32Array.from((await Promise.all(ts.map((t) => t.data()))).flatMap((d) => [...d]));

export const ids = () => tf.tensor2d(IDS, undefined, "int32");
export const targets = () => tf.tensor2d(TARGETS, undefined, "int32");
