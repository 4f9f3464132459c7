import * as tf from "@tensorflow/tfjs-core";
import {
  kernelsOf,
  mulRow,
  offsetsOf,
  recording,
  type WasmBackendInternals,
} from "./kernels/batch-matmul.js";

/**
 * RMSNorm: x / √(mean(x²) + ε) · w over the last axis. When no gradient is being recorded (sampling,
 * scoring) on tfjs-wasm, one SIMD kernel does the six tfjs ops of a row at once (simd-pointwise.ts's
 * `rmsnorm`): a decoding step has five norms. Training keeps the tfjs ops and their gradients.
 */
export function rmsNorm(x: tf.Tensor, w: tf.Tensor1D, eps: number): tf.Tensor {
  const d = x.shape.at(-1) as number;
  if (!recording() && tf.getBackend() === "wasm" && d % 4 === 0 && x.dtype === "float32")
    return tf.engine().runKernel(KERNEL, { x, w }, { eps }) as tf.Tensor;
  const normed = tf.mul(x, tf.rsqrt(tf.add(tf.mean(tf.square(x), -1, true), eps)));
  // The weight's gradient as column sums (batch-matmul.ts), not tfjs's Sum over the first axis.
  return x.rank === 2 ? mulRow(normed as tf.Tensor2D, w) : tf.mul(normed, w);
}

const KERNEL = "EdgegymRmsNorm";

tf.registerKernel({
  kernelName: KERNEL,
  backendName: "wasm",
  kernelFunc: ({ inputs, backend, attrs }) => {
    const be = backend as unknown as WasmBackendInternals;
    const { x, w } = inputs as { x: tf.TensorInfo; w: tf.TensorInfo };
    const d = x.shape.at(-1) as number;
    const out = be.makeOutput([...x.shape], "float32");
    const [px, pw, po] = offsetsOf(be, x, w, out);
    const epsBits = new Int32Array(new Float32Array([(attrs as { eps: number }).eps]).buffer)[0] as number;
    (kernelsOf(be) as NonNullable<ReturnType<typeof kernelsOf>>).rmsnorm(
      px,
      pw,
      po,
      tf.util.sizeFromShape(x.shape) / d,
      4 * d,
      epsBits,
    );
    return out;
  },
});
