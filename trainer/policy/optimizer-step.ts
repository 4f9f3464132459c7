import * as tf from "@tensorflow/tfjs-core";
import type { PolicyModel } from "./types.js";

export interface AdamConfig {
  /** Step size. */
  learningRate: number;
  beta1?: number;
  beta2?: number;
  epsilon?: number;
}

export function createAdam(c: AdamConfig): tf.AdamOptimizer {
  return tf.train.adam(c.learningRate, c.beta1 ?? 0.9, c.beta2 ?? 0.999, c.epsilon ?? 1e-8);
}

export interface StepStats {
  loss: number;
  /** Global L2 norm of the gradient before clipping. */
  gradNorm: number;
}

/**
 * One optimizer step on `loss()` over every trainable variable of `model`. Gradients are clipped to a
 * global norm of `maxGradNorm` (g ← g · min(1, c / ‖g‖₂)) when it is given.
 */
export function optimizerStep(
  model: PolicyModel,
  optimizer: tf.Optimizer,
  loss: () => tf.Scalar,
  maxGradNorm?: number,
): StepStats {
  const vars = model.trainableVariables as tf.Variable[];
  const { value, grads } = tf.variableGrads(loss, vars);
  const stats = tf.tidy(() => {
    const list = Object.values(grads);
    const norm = tf.sqrt(tf.addN(list.map((g) => tf.sum(tf.square(g)))));
    const gradNorm = norm.dataSync()[0] as number;
    const scale = maxGradNorm !== undefined && gradNorm > maxGradNorm ? maxGradNorm / gradNorm : 1;
    const named = vars.map((v) => ({
      name: v.name,
      tensor: scale === 1 ? (grads[v.name] as tf.Tensor) : tf.mul(grads[v.name] as tf.Tensor, scale),
    }));
    optimizer.applyGradients(named);
    return { loss: value.dataSync()[0] as number, gradNorm };
  });
  tf.dispose([value, ...Object.values(grads)]);
  return stats;
}
