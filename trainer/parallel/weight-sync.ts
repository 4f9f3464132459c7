import * as tf from "@tensorflow/tfjs-core";
import type { PolicyModel } from "../model/types.js";

/** A copy of every trainable weight, in `trainableVariables` order (copies pair variables by position). */
export async function readWeights(model: PolicyModel): Promise<Float32Array[]> {
  const values = await Promise.all(model.trainableVariables.map((v) => v.data()));
  return values.map((d) => Float32Array.from(d as Float32Array));
}

/** Sets `model`'s weights to `values` (from {@link readWeights} on a model of the same config). */
export function assignWeights(model: PolicyModel, values: readonly Float32Array[]): void {
  const variables = model.trainableVariables;
  if (values.length !== variables.length)
    throw new Error(`expected ${variables.length} weight tensors, got ${values.length}`);
  variables.forEach((v, i) => {
    const t = tf.tensor(values[i] as Float32Array, v.shape, "float32");
    v.assign(t);
    t.dispose();
  });
}

function same(a: readonly Float32Array[], b: readonly Float32Array[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as Float32Array;
    const y = b[i] as Float32Array;
    if (x.length !== y.length) return false;
    for (let j = 0; j < x.length; j++) if (!Object.is(x[j], y[j])) return false;
  }
  return true;
}

/**
 * What the threads last received of one model. The caller need not say when weights changed (after
 * an optimizer step, a checkpoint load): every shard call compares the weights with the last copy
 * sent, which for the policies trained here costs far less than one pass.
 */
export class WeightTracker {
  private sent: Float32Array[] | undefined;

  constructor(private readonly model: PolicyModel) {}

  /** The weights when they differ from the last ones returned, else undefined. */
  async changed(): Promise<Float32Array[] | undefined> {
    const now = await readWeights(this.model);
    if (this.sent !== undefined && same(this.sent, now)) return undefined;
    this.sent = now;
    return now;
  }
}
