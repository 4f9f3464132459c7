import { NamedAdam } from "./named-adam.js";

export interface AdamConfig {
  /** Step size. */
  learningRate: number;
  beta1?: number;
  beta2?: number;
  epsilon?: number;
}

/** Adam with slots kept by variable name, so its state can be saved and restored by name. */
export function createAdam(c: AdamConfig): NamedAdam {
  return new NamedAdam(c.learningRate, c.beta1 ?? 0.9, c.beta2 ?? 0.999, c.epsilon ?? 1e-8);
}

export interface StepStats {
  loss: number;
  /** Global L2 norm of the gradient before clipping. */
  gradNorm: number;
}
