import * as tf from "@tensorflow/tfjs-core";
import { product } from "./kernels/batch-matmul.js";

/**
 * Vocabulary-sized operations without `[B·T, V]` one-hot matrices. tfjs's own gather gradient needs the
 * UnsortedSegmentSum kernel, which tfjs-backend-wasm lacks, so the gradients here are written with
 * ScatterNd (which sums duplicate indices and exists on the cpu, wasm, webgl, webgpu and node backends).
 */

/** Most float32 elements of one `[rows, V]` block of logits (16 MiB; the backward pass holds ~8 such blocks). */
export const VOCAB_CHUNK_ELEMENTS = 2 ** 22;

/** Rows per chunk so that a `[rows, V]` block stays within `elements`. */
export const chunkRows = (vocab: number, elements = VOCAB_CHUNK_ELEMENTS): number =>
  Math.max(1, Math.floor(elements / vocab));

/**
 * `table[ids]` (`[R, D]` rows at `ids` → `[N, D]`) whose gradient is a scatter-add of the incoming rows
 * onto the rows used: the embedding lookup of training.
 */
export function gatherRows(table: tf.Tensor2D, ids: tf.Tensor1D): tf.Tensor2D {
  const op = tf.customGrad(((t: tf.Tensor2D, save: tf.GradSaveFunc) => {
    save([ids]);
    return {
      value: tf.gather(t, ids),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => [
        tf.scatterND(tf.reshape(saved[0] as tf.Tensor, [-1, 1]), dy, t.shape),
      ],
    };
  }) as never) as (t: tf.Tensor2D) => tf.Tensor2D;
  return op(table);
}

/** The output head: the tied embedding `[V, D]` (logits = h·Eᵀ) or an untied `[D, V]` matrix (h·W). */
export type VocabHead = { weight: tf.Tensor2D; tied: boolean };

export type TargetScores = {
  /** `[N]` log softmax(logits)[target]. */
  logprobs: tf.Tensor1D;
  /** `[N]` −Σ p log p, when asked for. */
  entropy?: tf.Tensor1D;
};

/** `flat[i] = i·V + targets[start + i]`: where each row's target sits in a flattened `[n, V]` block. */
function flatTargets(targets: Int32Array, start: number, n: number, vocab: number): tf.Tensor1D {
  const flat = new Int32Array(n);
  for (let i = 0; i < n; i++) flat[i] = i * vocab + (targets[start + i] as number);
  return tf.tensor1d(flat, "int32");
}

/**
 * Log-probabilities (and entropies) of `targets` under the head's logits, chunked over rows so that
 * only a `[rows, V]` block of logits exists at a time, in the forward and the backward pass alike: the
 * backward pass recomputes each block from the saved hidden states (as fused linear cross-entropy
 * kernels do) instead of keeping `[N, V]` logits, softmax and one-hots alive for the tape.
 * Gradients: d logp_t / dz = e_t − p; d H / dz = −p·(log p + H).
 */
export function targetScores(
  hidden: tf.Tensor2D,
  head: VocabHead,
  targets: Int32Array,
  opts: { entropy?: boolean; rowsPerChunk?: number } = {},
): TargetScores {
  const vocab = head.tied ? head.weight.shape[0] : head.weight.shape[1];
  const n = hidden.shape[0];
  const rows = opts.rowsPerChunk ?? chunkRows(vocab);
  const width = opts.entropy ? 2 : 1;
  const chunks: [number, number][] = [];
  for (let s = 0; s < n; s += rows) chunks.push([s, Math.min(rows, n - s)]);
  // The products are matmul.ts's (batch-matmul.ts's `product`): tied heads use an explicit transpose of E.
  const block = (h: tf.Tensor2D, wOut: tf.Tensor2D, s: number, len: number) => {
    const logits = product("nn", tf.slice(h, [s, 0], [len, -1]), wOut);
    // tf.logSoftmax's own arithmetic (shift by the max, then subtract log Σ exp), so the values are
    // bit for bit those of the one-hot formulation this replaced.
    const shifted = tf.sub(logits, tf.max(logits, -1, true));
    const logp = tf.sub(shifted, tf.log(tf.sum(tf.exp(shifted), -1, true)));
    return { logp, flat: flatTargets(targets, s, len, vocab) };
  };
  const op = tf.customGrad(((h: tf.Tensor2D, w: tf.Tensor2D, save: tf.GradSaveFunc) => {
    save([h, w]);
    const wOut = head.tied ? tf.transpose(w) : w;
    const parts = chunks.map(([s, len]) =>
      tf.tidy(() => {
        const { logp, flat } = block(h, wOut, s, len);
        const picked = tf.gather(tf.reshape(logp, [-1]), flat);
        if (!opts.entropy) return tf.reshape(picked, [len, 1]);
        const ent = tf.neg(tf.sum(tf.mul(tf.exp(logp), logp), -1));
        return tf.stack([picked, ent], 1);
      }),
    );
    return {
      value: parts.length === 1 ? (parts[0] as tf.Tensor) : tf.concat(parts, 0),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [sh, sw] = saved as [tf.Tensor2D, tf.Tensor2D];
        const wOutB = head.tied ? tf.transpose(sw) : sw;
        const wIn = head.tied ? sw : tf.transpose(sw);
        let dW: tf.Tensor2D | undefined;
        const dH = chunks.map(([s, len]) => {
          const { dh, dw } = tf.tidy(() => {
            const { logp, flat } = block(sh, wOutB, s, len);
            const p = tf.exp(logp);
            const g = tf.slice(dy, [s, 0], [len, width]);
            const gl = tf.slice(g, [0, 0], [len, 1]);
            let dz = tf.neg(tf.mul(gl, p));
            if (opts.entropy) {
              const ent = tf.neg(tf.sum(tf.mul(p, logp), -1, true));
              const ge = tf.slice(g, [0, 1], [len, 1]);
              dz = tf.sub(dz, tf.mul(ge, tf.mul(p, tf.add(logp, ent))));
            }
            const onTarget = tf.scatterND(tf.reshape(flat, [-1, 1]), tf.reshape(gl, [-1]), [len * vocab]);
            dz = tf.add(dz, tf.reshape(onTarget, [len, vocab]));
            const hc = tf.slice(sh, [s, 0], [len, -1]);
            return {
              dh: product("nn", dz, wIn) as tf.Tensor2D,
              // hᵀ·dz, transposed back for a tied head: the product the old matmul gradient computed.
              dw: (head.tied ? tf.transpose(product("tn", hc, dz)) : product("tn", hc, dz)) as tf.Tensor2D,
            };
          });
          if (dW) {
            const prev = dW;
            dW = tf.add(prev, dw);
            tf.dispose([prev, dw]);
          } else dW = dw;
          return dh;
        });
        return [dH.length === 1 ? (dH[0] as tf.Tensor) : tf.concat(dH, 0), dW as tf.Tensor2D];
      },
    };
  }) as never) as (h: tf.Tensor2D, w: tf.Tensor2D) => tf.Tensor2D;
  const out = op(hidden, head.weight);
  const logprobs = tf.reshape(tf.slice(out, [0, 0], [n, 1]), [n]) as tf.Tensor1D;
  if (!opts.entropy) return { logprobs };
  return { logprobs, entropy: tf.reshape(tf.slice(out, [0, 1], [n, 1]), [n]) as tf.Tensor1D };
}
