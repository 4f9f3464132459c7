/**
 * A small WebAssembly SIMD module with batched matrix products, emitted as bytes here (no toolchain at
 * build or run time). It imports tfjs-wasm's own memory, so it reads and writes tensors where they lie.
 *
 * Why: tfjs-backend-wasm sends only unbatched 2-D products to XNNPACK; a batched one (attention's
 * `[B·H, T, hd]` products) takes a scalar triple loop at ≈2 GFLOP/s, which was half of a training
 * step. These loops use f32x4 lanes. Every output element is still a sum over k, so results equal
 * tfjs's up to float associativity.
 */

const I32 = 0x7f;
const V128 = 0x7b;

const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
};
const sleb = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) return [...out, byte];
    out.push(byte | 0x80);
  }
};
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const text = (s: string): number[] => vec([...s].map((c) => [c.charCodeAt(0)]));

// Instructions: a few opcodes of the core and SIMD sets (memarg = alignment 2^2, then the offset).
const get = (i: number) => [0x20, ...uleb(i)];
const set = (i: number) => [0x21, ...uleb(i)];
const i32 = (n: number) => [0x41, ...sleb(n)];
const ADD = [0x6a];
const MUL = [0x6c];
const simd = (op: number) => [0xfd, ...uleb(op)];
const f32Load = (offset: number) => [0x2a, 2, ...uleb(offset)];
const f32Store = (offset: number) => [0x38, 2, ...uleb(offset)];
const F32_ADD = [0x92];
const vLoad = (offset: number) => [...simd(0), 2, ...uleb(offset)];
const vStore = (offset: number) => [...simd(11), 2, ...uleb(offset)];
const V_ZERO = [...simd(12), ...Array<number>(16).fill(0)];
const SPLAT = simd(19);
/** v128.load32_splat: one f32 from memory into all four lanes (one broadcast load on x64). */
const LOAD_SPLAT = [...simd(9), 2, 0];
const lane = (n: number) => [...simd(31), n];
const V_ADD = simd(228);
const V_SUB = simd(229);
const V_MUL = simd(230);
/** x·y + acc: relaxed SIMD's fused multiply-add (one rounding) where the engine has it, else mul, add. */
const madd = (fma: boolean, x: number[], y: number[], acc: number[]) =>
  fma ? [...x, ...y, ...acc, ...simd(0x105)] : [...acc, ...x, ...y, ...V_MUL, ...V_ADD];

/** `for (v = 0; v < limit; v += step) body`, with `limit` a local. */
const loop = (v: number, limit: number, step: number, body: number[]): number[] => [
  ...i32(0),
  ...set(v),
  ...[0x02, 0x40, 0x03, 0x40], // block, loop
  ...[...get(v), ...get(limit), 0x4f, 0x0d, 1], // br_if (v >= limit) out of the block
  ...body,
  ...[...get(v), ...i32(step), ...ADD, ...set(v)],
  ...[0x0c, 0, 0x0b, 0x0b], // br to the loop, end, end
];
/** `dst = a + b·c` (i32 locals). */
const mulAdd = (dst: number, a: number, b: number, c: number) => [
  ...[...get(a), ...get(b), ...get(c), ...MUL, ...ADD],
  ...set(dst),
];
/** `dst += by` (i32 locals). */
const bump = (dst: number, by: number) => [...get(dst), ...get(by), ...ADD, ...set(dst)];
const times = (n: number, f: (i: number) => number[]) => Array.from({ length: n }, (_, i) => f(i)).flat();

interface Kernel {
  name: string;
  params: number;
  locals: number[][];
  body: number[];
}

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

/** The elementwise ops and their f32x4 opcodes. */
const BINARY = { add: 228, sub: 229, mul: 230 } as const;
export type BinaryOp = keyof typeof BINARY;

/**
 * Elementwise `out = a op b` over f32x4 lanes, in three shapes of b (each output is the one IEEE
 * operation, so values equal tfjs's exactly):
 * - `{op}_same(a, b, out, nBytes)`: b as long as a;
 * - `{op}_row(a, b, out, rows, rowBytes)`: b one row, repeated for every row of a;
 * - `{op}_col(a, b, out, rows, rowBytes)`: b one value per row of a, broadcast along the row.
 */
function binary(op: BinaryOp, shape: "same" | "row" | "col"): Kernel {
  const code = simd(BINARY[op]);
  const lanes = (at: number[], aAt: number[], bv: number[]) => [
    ...at,
    ...aAt,
    ...vLoad(0),
    ...bv,
    ...code,
    ...vStore(0),
  ];
  if (shape === "same") {
    const [A, B, OUT, NB, i] = [0, 1, 2, 3, 4];
    const body = loop(
      i,
      NB,
      16,
      lanes(
        [...get(OUT), ...get(i), ...ADD],
        [...get(A), ...get(i), ...ADD],
        [...get(B), ...get(i), ...ADD, ...vLoad(0)],
      ),
    );
    return { name: `${op}_same`, params: 4, locals: [[1, I32]], body };
  }
  const [A, B, OUT, ROWS, RB, r, j, base, s] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const bv = shape === "row" ? [...get(B), ...get(j), ...ADD, ...vLoad(0)] : get(s);
  const row = [
    ...[...get(r), ...get(RB), ...MUL, ...set(base)],
    ...(shape === "col"
      ? [...get(B), ...get(r), ...i32(4), ...MUL, ...ADD, ...f32Load(0), ...SPLAT, ...set(s)]
      : []),
    ...loop(
      j,
      RB,
      16,
      lanes(
        [...get(OUT), ...get(base), ...ADD, ...get(j), ...ADD],
        [...get(A), ...get(base), ...ADD, ...get(j), ...ADD],
        bv,
      ),
    ),
  ];
  return {
    name: `${op}_${shape}`,
    params: 5,
    locals: [
      [3, I32],
      [1, V128],
    ],
    body: loop(r, ROWS, 1, row),
  };
}

/**
 * `rmsnorm(x, w, out, rows, dBytes, epsBits)`: out = x · (1 / √(mean(x²) + ε)) · w per row of x (the
 * forward pass only; ε passed as its float32 bits). The squares are summed in four lanes, then
 * pairwise, so the mean equals tfjs's up to float associativity; the rest is tfjs's order.
 */
function rmsnorm(): Kernel {
  const [X, W, OUT, ROWS, DB, EPS, r, j, base] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const [acc, v] = [9, 10];
  const at = (p: number) => [...get(p), ...get(base), ...ADD, ...get(j), ...ADD];
  const lanesSum = [
    ...[...get(acc), ...lane(0), ...get(acc), ...lane(1), ...F32_ADD],
    ...[...get(acc), ...lane(2), ...get(acc), ...lane(3), ...F32_ADD, ...F32_ADD],
  ];
  const row = [
    ...[...get(r), ...get(DB), ...MUL, ...set(base)],
    ...[...V_ZERO, ...set(acc)],
    ...loop(j, DB, 16, [
      ...at(X),
      ...vLoad(0),
      ...set(v),
      ...get(acc),
      ...get(v),
      ...get(v),
      ...V_MUL,
      ...V_ADD,
      ...set(acc),
    ]),
    // 1 / √(Σ / d + ε), d = dBytes / 4 as a float.
    ...[0x43, ...Array.from(new Uint8Array(new Float32Array([1]).buffer))],
    ...lanesSum,
    ...[...get(DB), ...i32(2), 0x76, 0xb3, 0x95], // i32.shr_u, f32.convert_i32_u, f32.div
    ...[...get(EPS), 0xbe, ...F32_ADD, 0x91, 0x95], // f32.reinterpret_i32, add, sqrt, div
    ...[...SPLAT, ...set(v)],
    ...loop(j, DB, 16, [
      ...at(OUT),
      ...at(X),
      ...vLoad(0),
      ...get(v),
      ...V_MUL,
      ...get(W),
      ...get(j),
      ...ADD,
      ...vLoad(0),
      ...V_MUL,
      ...vStore(0),
    ]),
  ];
  return {
    name: "rmsnorm",
    params: 6,
    locals: [
      [3, I32],
      [2, V128],
    ],
    body: loop(r, ROWS, 1, row),
  };
}

/**
 * `rope_{fwd|bwd}(x, cos, sin, out, rows, tableRows, widthBytes, halfBytes)`: rotary embedding of
 * every head (hd = 2·half columns) of each row of x, with row r using row r mod tableRows of the
 * tables (a `[T, width]` table serves every sequence of a batch). With x = [x₁, x₂] per head:
 * - fwd: x·cos + rotate_half(x)·sin = [x₁·c₁ − x₂·s₁, x₂·c₂ + x₁·s₂];
 * - bwd, its transpose for the gradient: dy·cos + rotate_halfᵀ(dy·sin) = [y₁·c₁ + y₂·s₂, y₂·c₂ − y₁·s₁].
 * Each output is two products and one sum, the IEEE operations tfjs's mul, mul, add (or sub) take, so
 * values equal the unfused ops' bit for bit. halfBytes must be a multiple of 16.
 */
function rope(backward: boolean): Kernel {
  const [X, C, S, OUT, ROWS, TROWS, WB, HB, r, xr, tr, h, j, p, hb2] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
  ];
  /** base + rowBase + p (+ halfBytes for the head's second half), a v128 load. */
  const load = (base: number, rowBase: number, second: boolean) => [
    ...[...get(base), ...get(rowBase), ...ADD, ...get(p), ...ADD],
    ...(second ? [...get(HB), ...ADD] : []),
    ...vLoad(0),
  ];
  const prod = (xSecond: boolean, table: number, tableSecond: boolean) => [
    ...load(X, xr, xSecond),
    ...load(table, tr, tableSecond),
    ...V_MUL,
  ];
  const half = (second: boolean) => {
    // First half: x₁·c₁ ∓ x₂·s₍₁|₂₎; second: x₂·c₂ ± x₁·s₍₂|₁₎ (fwd takes sin where it writes).
    const sinSecond = backward ? !second : second;
    const plus = second !== backward;
    return [
      ...[...get(OUT), ...get(xr), ...ADD, ...get(p), ...ADD, ...(second ? [...get(HB), ...ADD] : [])],
      ...prod(second, C, second),
      ...prod(!second, S, sinSecond),
      ...(plus ? V_ADD : V_SUB),
      ...vStore(0),
    ];
  };
  const pairs = [...[...get(h), ...get(j), ...ADD, ...set(p)], ...half(false), ...half(true)];
  const heads = [
    ...i32(0),
    ...set(h),
    ...[0x02, 0x40, 0x03, 0x40],
    ...[...get(h), ...get(WB), 0x4f, 0x0d, 1],
    ...loop(j, HB, 16, pairs),
    ...[...get(h), ...get(hb2), ...ADD, ...set(h)],
    ...[0x0c, 0, 0x0b, 0x0b],
  ];
  const row = [
    ...[...get(r), ...get(WB), ...MUL, ...set(xr)],
    ...[...get(r), ...get(TROWS), 0x70, ...get(WB), ...MUL, ...set(tr)], // i32.rem_u
    ...heads,
  ];
  return {
    name: `rope_${backward ? "bwd" : "fwd"}`,
    params: 8,
    locals: [[7, I32]],
    body: [...[...get(HB), ...get(HB), ...ADD, ...set(hb2)], ...loop(r, ROWS, 1, row)],
  };
}

/**
 * The module's bytes: `(import "env" "memory" (memory 0))` and the kernels, exported by name; with
 * `fma`, products accumulate by f32x4.relaxed_madd (Node 22; Node 20 lacks relaxed SIMD).
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
