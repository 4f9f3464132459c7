/** One variable's Adam moments in JavaScript memory, outside the backend's heap. */
export type HostMoments = { m: Float32Array; v: Float32Array };

/** The step's scalars as tfjs holds them: float32, with the bias corrections 1 − β^t of this step. */
export type AdamScalars = {
  beta1: number;
  beta2: number;
  epsilon: number;
  learningRate: number;
  /** 1 − β₁^t and 1 − β₂^t, read from the optimizer's accumulated powers. */
  oneMinusAccBeta1: number;
  oneMinusAccBeta2: number;
};

const f = Math.fround;

/**
 * One Adam step of one variable on the host: updates `moments` in place and returns the new value.
 * The ops and their order are tfjs's (adam_optimizer.js), each rounded to float32 with Math.fround,
 * as the cpu backend stores every op's result in a Float32Array; a float32 +, −, ×, ÷ or √ computed in
 * float64 and rounded once is the correctly rounded float32 result, so the bits are the backend's.
 * `value` and `gradient` are only read: on the cpu backend they are the tensors' own storage.
 */
export function hostAdamStep(
  value: Float32Array,
  gradient: Float32Array,
  moments: HostMoments,
  s: AdamScalars,
): Float32Array {
  const { m, v } = moments;
  const b1 = f(s.beta1);
  const b2 = f(s.beta2);
  const oneMinusB1 = f(1 - s.beta1);
  const oneMinusB2 = f(1 - s.beta2);
  const eps = f(s.epsilon);
  const step = f(-s.learningRate);
  const c1 = f(s.oneMinusAccBeta1);
  const c2 = f(s.oneMinusAccBeta2);
  const out = new Float32Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const g = gradient[i] as number;
    const mi = f(f((m[i] as number) * b1) + f(g * oneMinusB1));
    const vi = f(f((v[i] as number) * b2) + f(f(g * g) * oneMinusB2));
    m[i] = mi;
    v[i] = vi;
    const denominator = f(f(Math.sqrt(f(vi / c2))) + eps);
    out[i] = f(f(f(f(mi / c1) / denominator) * step) + (value[i] as number));
  }
  return out;
}
