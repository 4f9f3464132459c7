import * as tf from "@tensorflow/tfjs-core";

/** What `applyGradients` takes: a name → gradient map, or a list of named gradients. */
export type Gradients = Parameters<tf.Optimizer["applyGradients"]>[0];
/** One named gradient (or slot) as tfjs lists them; tfjs-core does not export the type itself. */
export type NamedTensor = Extract<Gradients, readonly unknown[]>[number];

/** One variable's Adam moments, in the variable's own shape. */
export interface AdamMoments {
  /** Engine name of the variable the moments belong to. */
  variable: string;
  m: tf.Tensor;
  v: tf.Tensor;
}

/**
 * tfjs Adam whose moment slots follow variable names. `tf.AdamOptimizer` keys its slots by the position
 * of each gradient in the list or map handed to `applyGradients`, so two callers that list the same
 * variables in different orders (an array in `trainableVariables` order, or a `variableGrads` map,
 * whose numeric engine names JavaScript orders numerically) would apply one variable's moments to
 * another. Here every call is reordered into the order in which variables first appeared; a variable
 * missing from a call gets no update, as a null gradient does in tfjs.
 */
export class NamedAdam extends tf.AdamOptimizer {
  private readonly slots: string[] = [];
  private readonly known = new Set<string>();

  override applyGradients(gradients: Gradients): void {
    const byName = new Map<string, tf.Tensor | null>(
      Array.isArray(gradients) ? gradients.map((g) => [g.name, g.tensor]) : Object.entries(gradients),
    );
    for (const name of byName.keys()) {
      if (!this.known.has(name)) {
        this.known.add(name);
        this.slots.push(name);
      }
    }
    // tfjs skips a null gradient after creating its slot, which keeps the slot layout stable.
    super.applyGradients(
      this.slots.map((name) => ({ name, tensor: byName.get(name) ?? null }) as NamedTensor),
    );
  }

  /**
   * Restores the state after `iterations` steps with these moments. The bias-correction powers β^t
   * are rebuilt by running the optimizer's own product `iterations` times over null gradients (which
   * also creates the slots), not with pow() as `setWeights` does, so a resumed run is bit-identical to
   * one that never stopped. Call on a fresh optimizer.
   */
  async restore(iterations: number, moments: readonly AdamMoments[]): Promise<void> {
    if (this.slots.length > 0) throw new Error("NamedAdam.restore needs a fresh optimizer");
    const nulls = moments.map((x) => ({ name: x.variable, tensor: null }) as unknown as NamedTensor);
    for (let i = 0; i < iterations; i++) this.applyGradients(nulls);
    if (iterations === 0) return;
    const [iter, ...slots] = await this.getWeights();
    iter?.tensor.dispose();
    moments.forEach((x, i) => {
      const [m, v] = [slots[i], slots[i + moments.length]];
      if (!m || !v) throw new Error(`no Adam slot for ${x.variable}`);
      (m.tensor as tf.Variable).assign(x.m);
      (v.tensor as tf.Variable).assign(x.v);
    });
  }
}
