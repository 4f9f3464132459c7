import * as tf from "@tensorflow/tfjs-core";
import "@tensorflow/tfjs-backend-wasm";

/**
 * tfjs-wasm kernels replaced by faster ones with the same values:
 *
 * - Identity: tfjs clones every tensor a gradient saves for the backward pass (engine.clone), and
 *   tfjs-wasm's Identity copies the buffer: a sixth of a training step here. Tensors are immutable, so
 *   the clone shares the buffer and counts a reference instead, as tfjs's cpu backend and tfjs-wasm's
 *   own Reshape do.
 * - Slice: tfjs-wasm's Slice first copies the whole input out of wasm memory (readSync) to cut a piece
 *   of it (0.3 ms to take 96 rows of a 3k-row tensor); this copies the piece from where the input lies.
 * - GatherV2 of whole rows (axis 0, the embedding lookup): tfjs-wasm took 5 ms for 768 rows of 128;
 *   this copies each row (other gathers keep tfjs's kernel).
 */

interface WasmBackendInternals {
  incRef(dataId: tf.DataId): void;
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(t: tf.TensorInfo): Float32Array | Int32Array | Uint8Array;
}

function replace(config: tf.KernelConfig): void {
  const old = tf.getKernel(config.kernelName, "wasm");
  if (old) tf.unregisterKernel(config.kernelName, "wasm");
  tf.registerKernel({ ...old, ...config });
}

const wasmIdentity = tf.getKernel("Identity", "wasm")?.kernelFunc;
const wasmSlice = tf.getKernel("Slice", "wasm")?.kernelFunc;
const wasmGather = tf.getKernel("GatherV2", "wasm")?.kernelFunc;

replace({
  kernelName: "Identity",
  backendName: "wasm",
  kernelFunc: (args) => {
    const x = args.inputs.x as tf.TensorInfo;
    if (x.dtype === "string" && wasmIdentity) return wasmIdentity(args);
    (args.backend as unknown as WasmBackendInternals).incRef(x.dataId);
    return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
  },
});

/** Copies the `size` box at `begin` of `x` (row-major `shape`) into `out`, one run of the last axis at a time. */
function copyBox(
  x: Float32Array | Int32Array | Uint8Array,
  shape: number[],
  begin: number[],
  size: number[],
  out: Float32Array | Int32Array | Uint8Array,
): void {
  const strides = tf.util.computeStrides(shape);
  const rank = shape.length;
  const run = size[rank - 1] as number;
  const rows = tf.util.sizeFromShape(size) / run;
  const at = new Array<number>(rank - 1).fill(0);
  for (let r = 0; r < rows; r++) {
    let from = begin[rank - 1] as number;
    for (let d = 0; d < rank - 1; d++)
      from += ((begin[d] as number) + (at[d] as number)) * (strides[d] as number);
    out.set(x.subarray(from, from + run), r * run);
    for (let d = rank - 2; d >= 0; d--) {
      at[d] = (at[d] as number) + 1;
      if ((at[d] as number) < (size[d] as number)) break;
      at[d] = 0;
    }
  }
}

replace({
  kernelName: "Slice",
  backendName: "wasm",
  kernelFunc: (args) => {
    const x = args.inputs.x as tf.TensorInfo;
    const be = args.backend as unknown as WasmBackendInternals;
    const { begin, size } = args.attrs as unknown as { begin: number | number[]; size?: number | number[] };
    const [b, s] = tf.slice_util.parseSliceParams(x as tf.Tensor, begin, size) as [number[], number[]];
    if (x.dtype === "string" && wasmSlice) return wasmSlice(args);
    const out = be.makeOutput(s, x.dtype);
    if (tf.util.sizeFromShape(s) === 0) return out;
    const from = be.typedArrayFromHeap(x);
    const to = be.typedArrayFromHeap(out);
    if (x.shape.length === 0) to.set(from);
    else copyBox(from, x.shape, b, s, to);
    return out;
  },
});

replace({
  kernelName: "GatherV2",
  backendName: "wasm",
  kernelFunc: (args) => {
    const { x, indices } = args.inputs as { x: tf.TensorInfo; indices: tf.TensorInfo };
    const { axis, batchDims } = args.attrs as unknown as { axis: number; batchDims: number };
    const rowsOf = x.shape[0] as number;
    if (
      x.dtype === "string" ||
      indices.dtype !== "int32" ||
      tf.util.bytesPerElement(x.dtype) !== 4 ||
      (axis !== 0 && axis !== -x.shape.length) ||
      batchDims
    )
      return (wasmGather as tf.KernelFunc)(args);
    const be = args.backend as unknown as WasmBackendInternals;
    const at = be.typedArrayFromHeap(indices).slice();
    const width = tf.util.sizeFromShape(x.shape.slice(1));
    const out = be.makeOutput([...indices.shape, ...x.shape.slice(1)], x.dtype);
    const from = be.typedArrayFromHeap(x);
    const to = be.typedArrayFromHeap(out);
    for (let i = 0; i < at.length; i++) {
      const row = at[i] as number;
      if (row < 0 || row >= rowsOf)
        throw new Error(`GatherV2: the index value ${row} is not in [0, ${rowsOf - 1}]`);
      to.set(from.subarray(row * width, (row + 1) * width), i * width);
    }
    return out;
  },
});
