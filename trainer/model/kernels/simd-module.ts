/**
 * A small WebAssembly SIMD module with batched matrix products, emitted as bytes here (no toolchain at
 * build or run time). It imports tfjs-wasm's own memory, so it reads and writes tensors where they lie.
 *
 * Why: tfjs-backend-wasm sends only unbatched 2-D products to XNNPACK; a batched one (attention's
 * `[B·H, T, hd]` products) takes a scalar triple loop at ≈2 GFLOP/s, which was half of a training
 * step. These loops use f32x4 lanes. Every output element is still a sum over k, so results equal
 * tfjs's up to float associativity.
 */

import { type BinaryOp, binary, rmsnorm, rope } from "./simd-pointwise.js";
import {
  ADD,
  bump,
  F32_ADD,
  f32Store,
  get,
  I32,
  i32,
  type Kernel,
  LOAD_SPLAT,
  lane,
  loop,
  MUL,
  madd,
  mulAdd,
  section,
  set,
  text,
  times,
  uleb,
  V_ZERO,
  V128,
  vec,
  vLoad,
  vStore,
} from "./wasm-encoding.js";

/**
 * `axpy{rows}x{width}[acc](A, B, OUT, batch, m, nBytes, k, aBatch, bBatch, aRow, aCol, bRow)`:
 * out[t, i, j] = Σ_k A[t, i, k]·B[t, k, j], out contiguous. A's element (i, k) is at
 * `A + t·aBatch + i·aRow + k·aCol` (so Aᵀ·B needs no transpose), B's row k at `B + t·bBatch + k·bRow`.
 * A block of `rows` (≤ 4) rows × 4·width columns is held in registers: per k, `rows` broadcast A
 * elements times `width` vectors of a B row, so each load feeds several products. m must be a multiple
 * of rows and nBytes of 16·width. Each output is a sum over k in order, whatever the block.
 * The `acc` form starts each sum from what OUT holds instead of 0, so a long k can be split into
 * chunks whose B rows stay in cache, and the sums are still taken in the same order.
 */
function axpy(rows: number, width: number, fma: boolean, accumulate = false): Kernel {
  const [A, B, OUT, BATCH, M, NB, K, AB, BB, AR, AC, BR] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
  const [t, i, j, k, a, b, o, ap, bp, mnb, ar2, ar3] = [12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23];
  const x = (r: number) => 24 + r;
  const bv = (n: number) => 24 + rows + n;
  const acc = (r: number, n: number) => 24 + rows + width + r * width + n;
  // Row r of a block is r·stride past its first; the multiples are taken once, outside the loops.
  const rowAt = (base: number, r: number, stride: number, multiples: number[]) =>
    r === 0
      ? get(base)
      : [...get(base), ...(r === 1 ? get(stride) : get(multiples[r - 2] as number)), ...ADD];
  const inner = [
    ...times(rows, (r) => [...rowAt(ap, r, AR, [ar2, ar3]), ...LOAD_SPLAT, ...set(x(r))]),
    ...times(width, (n) => [...get(bp), ...vLoad(16 * n), ...set(bv(n))]),
    ...times(rows, (r) =>
      times(width, (n) => [...madd(fma, get(x(r)), get(bv(n)), get(acc(r, n))), ...set(acc(r, n))]),
    ),
    ...bump(ap, AC),
    ...bump(bp, BR),
  ];
  const outRow = (r: number) => [...get(o), ...(r === 0 ? [] : [...i32(r), ...get(NB), ...MUL, ...ADD])];
  const block = [
    // o = OUT + t·m·nBytes + i·nBytes + j, then row r at o + r·nBytes.
    ...[...get(OUT), ...get(t), ...get(mnb), ...MUL, ...ADD],
    ...[...get(i), ...get(NB), ...MUL, ...ADD, ...get(j), ...ADD, ...set(o)],
    ...times(rows, (r) =>
      times(width, (n) => [...(accumulate ? [...outRow(r), ...vLoad(16 * n)] : V_ZERO), ...set(acc(r, n))]),
    ),
    ...mulAdd(ap, a, i, AR),
    ...[...get(b), ...get(j), ...ADD, ...set(bp)],
    ...loop(k, K, 1, inner),
    ...times(rows, (r) => times(width, (n) => [...outRow(r), ...get(acc(r, n)), ...vStore(16 * n)])),
  ];
  const body = [
    ...[...get(M), ...get(NB), ...MUL, ...set(mnb)],
    ...[...i32(2), ...get(AR), ...MUL, ...set(ar2), ...i32(3), ...get(AR), ...MUL, ...set(ar3)],
    ...loop(t, BATCH, 1, [
      ...mulAdd(a, A, t, AB),
      ...mulAdd(b, B, t, BB),
      ...loop(i, M, rows, loop(j, NB, 16 * width, block)),
    ]),
  ];
  return {
    name: `axpy${rows}x${width}${accumulate ? "acc" : ""}`,
    params: 12,
    locals: [
      [12, I32],
      [rows + width + rows * width, V128],
    ],
    body,
  };
}

/**
 * `dot{width}(A, B, OUT, batch, m, n, kBytes, aBatch, bBatch, aRow, bRow)`:
 * out[t, i, j] = Σ_k A[t, i, k]·B[t, j, k] (A·Bᵀ), out contiguous, A's row i at
 * `A + t·aBatch + i·aRow`, B's row j at `B + t·bBatch + j·bRow`. Four partial sums per lane, added
 * pairwise at the end; `width` rows of B share each load of A. n must be a multiple of width and
 * kBytes of 16.
 */
function dot(width: number, fma: boolean): Kernel {
  const [A, B, OUT, BATCH, M, N, KB, AB, BB, AR, BR] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  const [t, i, j, k, a, b, o, ar] = [11, 12, 13, 14, 15, 16, 17, 18];
  const row = (n: number) => 19 + n;
  const x = 19 + width;
  const acc = (n: number) => 20 + width + n;
  const inner = [
    ...[...get(ar), ...get(k), ...ADD, ...vLoad(0), ...set(x)],
    ...times(width, (n) => [
      ...madd(fma, get(x), [...get(row(n)), ...get(k), ...ADD, ...vLoad(0)], get(acc(n))),
      ...set(acc(n)),
    ]),
  ];
  const hsum = (n: number) => [
    ...[...get(acc(n)), ...lane(0), ...get(acc(n)), ...lane(1), ...F32_ADD],
    ...[...get(acc(n)), ...lane(2), ...get(acc(n)), ...lane(3), ...F32_ADD, ...F32_ADD],
  ];
  const rows = [
    ...times(width, (n) => [...V_ZERO, ...set(acc(n))]),
    ...mulAdd(row(0), b, j, BR),
    ...times(width - 1, (n) => [...get(row(n)), ...get(BR), ...ADD, ...set(row(n + 1))]),
    ...loop(k, KB, 16, inner),
    ...times(width, (n) => [...get(o), ...hsum(n), ...f32Store(4 * n)]),
    ...[...get(o), ...i32(4 * width), ...ADD, ...set(o)],
  ];
  const body = [
    ...[...get(OUT), ...set(o)],
    ...loop(t, BATCH, 1, [
      ...mulAdd(a, A, t, AB),
      ...mulAdd(b, B, t, BB),
      ...loop(i, M, 1, [...mulAdd(ar, a, i, AR), ...loop(j, N, width, rows)]),
    ]),
  ];
  return {
    name: `dot${width}`,
    params: 11,
    locals: [
      [8 + width, I32],
      [1 + width, V128],
    ],
    body,
  };
}

/**
 * The module's bytes: `(import "env" "memory" (memory 0))` and the kernels, exported by name; with
 * `fma`, products accumulate by f32x4.relaxed_madd (where V8 has relaxed SIMD: Node 22, and the
 * Node 20.20 here; older engines get the plain build).
 */
export function simdModuleBytes(fma: boolean): Uint8Array<ArrayBuffer> {
  const kernels = [
    ...[axpy(1, 1, fma), axpy(1, 4, fma), axpy(4, 2, fma), axpy(4, 2, fma, true)],
    ...[axpy(4, 1, fma), axpy(4, 1, fma, true), dot(1, fma), dot(4, fma)],
    rmsnorm(),
    rope(false),
    rope(true),
    ...(["add", "sub", "mul"] as const).flatMap((op) =>
      (["same", "row", "col"] as const).map((sh) => binary(op, sh)),
    ),
  ];
  const types = kernels.map((f) => [0x60, ...vec(Array.from({ length: f.params }, () => [I32])), 0]);
  const bytes = [
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, vec(types)),
    ...section(2, vec([[...text("env"), ...text("memory"), 0x02, 0x00, 0x00]])),
    ...section(3, vec(kernels.map((_, i) => uleb(i)))),
    ...section(7, vec(kernels.map((f, i) => [...text(f.name), 0x00, ...uleb(i)]))),
    ...section(
      10,
      vec(
        kernels.map((f) => {
          const code = [
            ...vec(f.locals.map(([n, type]) => [...uleb(n as number), type as number])),
            ...f.body,
            0x0b,
          ];
          return [...uleb(code.length), ...code];
        }),
      ),
    ),
  ];
  return new Uint8Array(bytes);
}

type Fn = (...args: number[]) => void;

export type SimdKernels = {
  axpy1x1: (...args: number[]) => void;
  axpy1x4: (...args: number[]) => void;
  axpy4x2: (...args: number[]) => void;
  axpy4x2acc: (...args: number[]) => void;
  axpy4x1: (...args: number[]) => void;
  axpy4x1acc: (...args: number[]) => void;
  dot1: (...args: number[]) => void;
  dot4: (...args: number[]) => void;
  rmsnorm: (...args: number[]) => void;
  rope_fwd: (...args: number[]) => void;
  rope_bwd: (...args: number[]) => void;
} & {
  /** `{op}_{same|row|col}`, see {@link binary}. */
  [K in `${BinaryOp}_${"same" | "row" | "col"}`]: Fn;
};

/** The kernels bound to `memory` (fused multiply-adds where available), or null without WebAssembly SIMD. */
export function instantiateSimd(memory: WebAssembly.Memory): SimdKernels | null {
  for (const fma of [true, false]) {
    try {
      const module = new WebAssembly.Module(simdModuleBytes(fma));
      return new WebAssembly.Instance(module, { env: { memory } }).exports as unknown as SimdKernels;
    } catch {
      // Relaxed SIMD missing (fma) or SIMD missing altogether.
    }
  }
  return null;
}
