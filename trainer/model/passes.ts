import * as tf from "@tensorflow/tfjs-core";
import type { ModelConfig } from "./types.js";

/**
 * Default budget of one pass: 2²⁵ elements (128 MiB per tensor of that size). One pass over a whole
 * code-env batch (29 rows of 619 tokens) held ~45M-element attention tensors per layer and exhausted
 * wasm's 4 GiB heap in the backward pass, which tfjs-wasm reports as "remainder by zero".
 */
export const PASS_ELEMENTS = 2 ** 25;

/**
 * Size of a pass over n rows of width w: n·w·(L·H·w + 2·V) elements, the attention scores of every
 * layer (kept for the backward pass) plus the logits and one-hots over the vocabulary.
 */
export function passCost(c: ModelConfig, n: number, w: number): number {
  return n * w * (c.nLayers * c.nHeads * w + 2 * c.vocabSize);
}

/** Rows run through the model together, trimmed to `width` columns (their longest sequence). */
export type Pass = { rows: number[]; width: number };

/**
 * Splits `rows` into passes of at most `budget` elements each (a row over budget alone still gets
 * a pass). Rows are sorted by length first so each pass is padded only to its own longest row;
 * right padding beyond a row's length changes nothing under the causal mask.
 */
export function planPasses(
  lengths: readonly number[],
  rows: readonly number[],
  c: ModelConfig,
  budget: number,
): Pass[] {
  const length = (r: number) => lengths[r] as number;
  const sorted = [...rows].sort((a, b) => length(a) - length(b));
  const passes: Pass[] = [];
  let current: number[] = [];
  for (const r of sorted) {
    if (current.length > 0 && passCost(c, current.length + 1, length(r)) > budget) {
      passes.push({ rows: current, width: length(current[current.length - 1] as number) });
      current = [];
    }
    current.push(r);
  }
  if (current.length > 0)
    passes.push({ rows: current, width: length(current[current.length - 1] as number) });
  return passes;
}

/** The pass's rows of an `[R, T]` matrix, trimmed to the pass width. */
export function rowsOf(m: readonly (readonly number[])[], pass: Pass): number[][] {
  return pass.rows.map((r) => (m[r] ?? []).slice(0, pass.width));
}

/** Adds `grads` into `acc` (both by variable name), disposing what it replaces. */
export function accumulate(acc: tf.NamedTensorMap, grads: tf.NamedTensorMap): void {
  for (const [name, g] of Object.entries(grads)) {
    const prev = acc[name];
    if (!prev) {
      acc[name] = g;
      continue;
    }
    acc[name] = tf.add(prev, g);
    tf.dispose([prev, g]);
  }
}
