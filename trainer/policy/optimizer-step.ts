import * as tf from "@tensorflow/tfjs-core";

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
