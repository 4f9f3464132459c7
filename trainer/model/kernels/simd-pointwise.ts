/**
 * The elementwise kernels of simd-module.ts: binary ops in three broadcast shapes, RMSNorm's forward
 * pass and RoPE. Each does the IEEE operations of the tfjs ops it replaces, in their order.
 */
import {
  ADD,
  F32_ADD,
  f32Load,
  get,
  I32,
  i32,
  type Kernel,
  lane,
  loop,
  MUL,
  SPLAT,
  set,
  simd,
  V_ADD,
  V_MUL,
  V_SUB,
  V_ZERO,
  V128,
  vLoad,
  vStore,
} from "./wasm-encoding.js";

/** The elementwise ops and their f32x4 opcodes. */
export const BINARY = { add: 228, sub: 229, mul: 230 } as const;
export type BinaryOp = keyof typeof BINARY;

/**
 * Elementwise `out = a op b` over f32x4 lanes, in three shapes of b (each output is the one IEEE
 * operation, so values equal tfjs's exactly):
 * - `{op}_same(a, b, out, nBytes)`: b as long as a;
 * - `{op}_row(a, b, out, rows, rowBytes)`: b one row, repeated for every row of a;
 * - `{op}_col(a, b, out, rows, rowBytes)`: b one value per row of a, broadcast along the row.
 */
export function binary(op: BinaryOp, shape: "same" | "row" | "col"): Kernel {
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
export function rmsnorm(): Kernel {
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
export function rope(backward: boolean): Kernel {
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
