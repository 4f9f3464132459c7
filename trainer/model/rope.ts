import * as tf from "@tensorflow/tfjs-core";
import type { ModelConfig } from "../policy/types.js";
import { headDim } from "./config.js";
import { matmul } from "./matmul.js";

/**
 * Rotary position tables for the fused q|k columns (`(H + KV)·hd` wide). HF's rotate-half form is
 * `x·cos + rotate_half(x)·sin`; rotate_half is linear, so it is folded into the projection weights
 * (`x @ R = a @ (W @ R)`, see {@link rotateColumns}) and RoPE costs two multiplies and an add.
 * The attention scale 1/√hd is folded into the q columns of both tables.
 */
export interface RopeTables {
  /** `[contextLength, (H + KV)·hd]`. */
  cos: tf.Tensor2D;
  sin: tf.Tensor2D;
  /** `[hd, hd]` with `x @ R = rotate_half(x) = [−x₂, x₁]`. */
  rotate: tf.Tensor2D;
  /** Host copies of cos/sin, to build per-row tables for decoding without a gather kernel per step. */
  host: { cos: Float32Array; sin: Float32Array; width: number };
}

/** `[rows.length, 1, width]` cos and sin tensors for one position per row. */
export function ropeRows(
  r: RopeTables,
  positions: readonly number[],
): { cos: tf.Tensor3D; sin: tf.Tensor3D } {
  const { width } = r.host;
  const cos = new Float32Array(positions.length * width);
  const sin = new Float32Array(positions.length * width);
  positions.forEach((p, i) => {
    cos.set(r.host.cos.subarray(p * width, (p + 1) * width), i * width);
    sin.set(r.host.sin.subarray(p * width, (p + 1) * width), i * width);
  });
  return {
    cos: tf.tensor3d(cos, [positions.length, 1, width]),
    sin: tf.tensor3d(sin, [positions.length, 1, width]),
  };
}

export function ropeTables(c: ModelConfig): RopeTables {
  const hd = headDim(c);
  const half = hd / 2;
  const width = (c.nHeads + c.nKvHeads) * hd;
  const cos = new Float32Array(c.contextLength * width);
  const sin = new Float32Array(c.contextLength * width);
  const qScale = 1 / Math.sqrt(hd);
  for (let p = 0; p < c.contextLength; p++) {
    for (let head = 0; head < c.nHeads + c.nKvHeads; head++) {
      const scale = head < c.nHeads ? qScale : 1;
      for (let j = 0; j < hd; j++) {
        // Frequencies are shared by the two halves: inv_freq[i] = θ^(−2i/hd), i = j mod hd/2.
        const angle = p * c.ropeTheta ** (-(2 * (j % half)) / hd);
        const at = p * width + head * hd + j;
        cos[at] = Math.cos(angle) * scale;
        sin[at] = Math.sin(angle) * scale;
      }
    }
  }
  const rotate = new Float32Array(hd * hd);
  for (let j = 0; j < half; j++) {
    rotate[(j + half) * hd + j] = -1;
    rotate[j * hd + j + half] = 1;
  }
  return {
    cos: tf.tensor2d(cos, [c.contextLength, width]),
    sin: tf.tensor2d(sin, [c.contextLength, width]),
    rotate: tf.tensor2d(rotate, [hd, hd]),
    host: { cos, sin, width },
  };
}

/** `[R, n·hd]` → the same columns each multiplied by `rotate` per head: `W @ blockdiag(R)`. */
export function rotateColumns(w: tf.Tensor2D, rotate: tf.Tensor2D): tf.Tensor2D {
  const [rows, cols] = w.shape;
  const hd = rotate.shape[0];
  return tf.reshape(matmul(tf.reshape(w, [(rows * cols) / hd, hd]), rotate), [rows, cols]);
}

export function disposeRope(t: RopeTables): void {
  t.cos.dispose();
  t.sin.dispose();
  t.rotate.dispose();
}
