import * as tf from "@tensorflow/tfjs-core";
import { type HostMoments, hostAdamStep } from "./host-adam.js";

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

/** Whether {@link NamedAdam} keeps its moments on the host on this backend: webgpu cannot read synchronously. */
export const hostMoments = (backend: string): boolean => backend !== "webgpu";

/** AdamOptimizer's private state, which {@link NamedAdam.step} updates as tfjs's own code does. */
type AdamInternals = {
  accBeta1: tf.Variable;
  accBeta2: tf.Variable;
  accumulatedFirstMoment: { originalName: string; variable: tf.Variable }[];
  accumulatedSecondMoment: { originalName: string; variable: tf.Variable }[];
  incrementIterations(): void;
};

/**
 * tfjs Adam whose moment slots follow variable names, and whose moments live in JavaScript memory
 * (see {@link hostAdamStep}) on every backend that reads tensors synchronously, i.e. all but webgpu:
 * on wasm they would take two copies of the model out of the 32-bit heap's 4 GiB, which is what kept
 * SmolLM2-135M's 30 layers from fitting. On webgpu they stay tensors, as in tfjs.
 *
 * The slots follow variable names: `tf.AdamOptimizer` keys its slots by the position
 * of each gradient in the list or map handed to `applyGradients`, so two callers that list the same
 * variables in different orders (an array in `trainableVariables` order, or a `variableGrads` map,
 * whose numeric engine names JavaScript orders numerically) would apply one variable's moments to
 * another. Here every call is reordered into the order in which variables first appeared; a variable
 * missing from a call gets no update, as a null gradient does in tfjs.
 */
export class NamedAdam extends tf.AdamOptimizer {
  private readonly slots: string[] = [];
  private readonly known = new Set<string>();
  /** The moments by variable name on the host; undefined where they are tensors (webgpu). */
  private readonly host: Map<string, HostMoments> | undefined;

  /** `onHost` says where the moments live; by default as {@link hostMoments} says for this backend. */
  constructor(
    learningRate: number,
    beta1: number,
    beta2: number,
    epsilon: number,
    onHost = hostMoments(tf.getBackend()),
  ) {
    super(learningRate, beta1, beta2, epsilon);
    this.host = onHost ? new Map() : undefined;
  }

  /**
   * A continued run keeps the saved moments but steps at its own configured rate: otherwise
   * `sft --init <ckpt> --set lr=…` trains at the checkpoint's rate while its logged config says another.
   */
  withLearningRate(lr: number): this {
    this.learningRate = lr;
    return this;
  }

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
    // A null gradient gets its slot and no update, as in tfjs, which keeps the slot layout stable.
    const list = this.slots.map((name) => ({ name, tensor: byName.get(name) ?? null }));
    if (this.host) this.hostStep(this.host, list);
    else this.step(list);
    const self = this as unknown as AdamInternals;
    tf.tidy(() => {
      self.accBeta1.assign(tf.mul(self.accBeta1, this.beta1));
      self.accBeta2.assign(tf.mul(self.accBeta2, this.beta2));
    });
    self.incrementIterations();
  }

  /**
   * The step with host moments: each variable's value and gradient are read, stepped on the host, and
   * the new value written back, so the heap holds one new value at a time beside the gradients.
   */
  private hostStep(host: Map<string, HostMoments>, list: { name: string; tensor: tf.Tensor | null }[]) {
    const self = this as unknown as AdamInternals;
    const scalars = {
      beta1: this.beta1,
      beta2: this.beta2,
      epsilon: this.epsilon,
      learningRate: this.learningRate,
      // tfjs's `tf.sub(1, accBeta)`: a float32 subtraction.
      oneMinusAccBeta1: Math.fround(1 - (self.accBeta1.dataSync()[0] as number)),
      oneMinusAccBeta2: Math.fround(1 - (self.accBeta2.dataSync()[0] as number)),
    };
    for (const { name, tensor: gradient } of list) {
      const value = tf.engine().registeredVariables[name] as tf.Variable;
      let moments = host.get(name);
      if (!moments) {
        moments = { m: new Float32Array(value.size), v: new Float32Array(value.size) };
        host.set(name, moments);
      }
      if (gradient == null) continue;
      const next = hostAdamStep(
        value.dataSync() as Float32Array,
        gradient.dataSync() as Float32Array,
        moments,
        scalars,
      );
      const written = tf.tensor(next, value.shape);
      value.assign(written);
      written.dispose();
    }
  }

  /**
   * tfjs's layout (the step count, then every first moment, then every second one, in slot order);
   * with host moments the tensors are copies made for the caller, who disposes them.
   */
  override async getWeights(): Promise<NamedTensor[]> {
    const weights = await super.getWeights();
    const host = this.host;
    if (!host) return weights;
    const copies = (key: "m" | "v") =>
      this.slots.map((name) => {
        const moments = host.get(name) as HostMoments;
        const shape = (tf.engine().registeredVariables[name] as tf.Variable).shape;
        return { name: `${name}/${key}`, tensor: tf.tensor(moments[key], shape) };
      });
    return [...weights.slice(0, 1), ...copies("m"), ...copies("v")];
  }

  /**
   * tfjs's Adam update (adam_optimizer.js): the same ops in the same order, so the same bits, but each
   * variable in its own tidy. tfjs runs every variable inside one tidy, so the ~12 temporaries of each
   * variable's size stay alive until the last variable is done: ~14 copies of the model at once, 7 GB
   * for 135M parameters, far past wasm's 4 GiB heap.
   */
  private step(list: { name: string; tensor: tf.Tensor | null }[]): void {
    const self = this as unknown as AdamInternals;
    const oneMinusAccBeta1 = tf.sub(1, self.accBeta1);
    const oneMinusAccBeta2 = tf.sub(1, self.accBeta2);
    list.forEach(({ name, tensor: gradient }, i) => {
      const value = tf.engine().registeredVariables[name] as tf.Variable;
      const slot = (suffix: string) => ({
        originalName: `${name}/${suffix}`,
        variable: tf.tidy(() => tf.zerosLike(value).variable(false)),
      });
      self.accumulatedFirstMoment[i] ??= slot("m");
      self.accumulatedSecondMoment[i] ??= slot("v");
      if (gradient == null) return;
      const firstMoment = self.accumulatedFirstMoment[i].variable;
      const secondMoment = self.accumulatedSecondMoment[i].variable;
      // Each temporary is disposed as soon as it is used, so at most three of the variable's size live.
      tf.tidy(() => {
        const free = <T extends tf.Tensor>(t: T, ...used: tf.Tensor[]): T => {
          tf.dispose(used);
          return t;
        };
        const a = tf.mul(firstMoment, this.beta1);
        const b = tf.mul(gradient, 1 - this.beta1);
        const newFirstMoment = free(tf.add(a, b), a, b);
        const squared = tf.square(gradient);
        const c = tf.mul(secondMoment, this.beta2);
        const d = free(tf.mul(squared, 1 - this.beta2), squared);
        const newSecondMoment = free(tf.add(c, d), c, d);
        const biasCorrectedFirstMoment = tf.div(newFirstMoment, oneMinusAccBeta1);
        const biasCorrectedSecondMoment = tf.div(newSecondMoment, oneMinusAccBeta2);
        firstMoment.assign(newFirstMoment);
        secondMoment.assign(newSecondMoment);
        tf.dispose([newFirstMoment, newSecondMoment]);
        const root = free(tf.sqrt(biasCorrectedSecondMoment), biasCorrectedSecondMoment);
        const denominator = free(tf.add(root, this.epsilon), root);
        const ratio = free(
          tf.div(biasCorrectedFirstMoment, denominator),
          biasCorrectedFirstMoment,
          denominator,
        );
        const update = free(tf.mul(ratio, -this.learningRate), ratio);
        const newValue = free(tf.add(update, value), update);
        value.assign(newValue);
        newValue.dispose();
      });
    });
    tf.dispose([oneMinusAccBeta1, oneMinusAccBeta2]);
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
    const host = this.host;
    if (host) {
      for (const x of moments) {
        const slot = host.get(x.variable);
        if (!slot) throw new Error(`no Adam slot for ${x.variable}`);
        slot.m.set(await x.m.data());
        slot.v.set(await x.v.data());
      }
      return;
    }
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
