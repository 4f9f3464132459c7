import { headDim } from "./config.js";
import type { ModelConfig } from "./types.js";

/**
 * RoPE's inverse frequencies, one per pair of a head's columns: inv_freq[i] = θ^(−2i/hd), rescaled as
 * Llama 3 does when `ropeScaling` is set (transformers' `_compute_llama3_parameters`): wavelengths
 * longer than originalContext / lowFreqFactor are divided by `factor`, those shorter than
 * originalContext / highFreqFactor are kept, and those between blend the two linearly in
 * originalContext / wavelength. Llama 3's attention factor is 1, so the tables need no other change.
 */
export function inverseFrequencies(c: ModelConfig): Float64Array {
  const hd = headDim(c);
  const out = new Float64Array(hd / 2);
  for (let i = 0; i < hd / 2; i++) out[i] = c.ropeTheta ** (-(2 * i) / hd);
  const s = c.ropeScaling;
  if (!s) return out;
  const lowWavelength = s.originalContext / s.lowFreqFactor;
  const highWavelength = s.originalContext / s.highFreqFactor;
  for (let i = 0; i < out.length; i++) {
    const f = out[i] as number;
    const wavelength = (2 * Math.PI) / f;
    if (wavelength > lowWavelength) out[i] = f / s.factor;
    else if (wavelength >= highWavelength) {
      const smooth =
        (s.originalContext / wavelength - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
      out[i] = (1 - smooth) * (f / s.factor) + smooth * f;
    }
  }
  return out;
}
