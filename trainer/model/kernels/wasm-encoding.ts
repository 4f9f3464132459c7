/**
 * The few WebAssembly encodings simd-module.ts's kernels are written with: LEB128 numbers, sections,
 * and some core and SIMD instructions as byte arrays (memarg = alignment 2^2, then the offset).
 */

export const I32 = 0x7f;
export const V128 = 0x7b;

export const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
};
export const sleb = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) return [...out, byte];
    out.push(byte | 0x80);
  }
};
export const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
export const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
export const text = (s: string): number[] => vec([...s].map((c) => [c.charCodeAt(0)]));

// Instructions: a few opcodes of the core and SIMD sets (memarg = alignment 2^2, then the offset).
export const get = (i: number) => [0x20, ...uleb(i)];
export const set = (i: number) => [0x21, ...uleb(i)];
export const i32 = (n: number) => [0x41, ...sleb(n)];
export const ADD = [0x6a];
export const MUL = [0x6c];
export const simd = (op: number) => [0xfd, ...uleb(op)];
export const f32Load = (offset: number) => [0x2a, 2, ...uleb(offset)];
export const f32Store = (offset: number) => [0x38, 2, ...uleb(offset)];
export const F32_ADD = [0x92];
export const vLoad = (offset: number) => [...simd(0), 2, ...uleb(offset)];
export const vStore = (offset: number) => [...simd(11), 2, ...uleb(offset)];
export const V_ZERO = [...simd(12), ...Array<number>(16).fill(0)];
export const SPLAT = simd(19);
/** v128.load32_splat: one f32 from memory into all four lanes (one broadcast load on x64). */
export const LOAD_SPLAT = [...simd(9), 2, 0];
export const lane = (n: number) => [...simd(31), n];
export const V_ADD = simd(228);
export const V_SUB = simd(229);
export const V_MUL = simd(230);
/** x·y + acc: relaxed SIMD's fused multiply-add (one rounding) where the engine has it, else mul, add. */
export const madd = (fma: boolean, x: number[], y: number[], acc: number[]) =>
  fma ? [...x, ...y, ...acc, ...simd(0x105)] : [...acc, ...x, ...y, ...V_MUL, ...V_ADD];

/** `for (v = 0; v < limit; v += step) body`, with `limit` a local. */
export const loop = (v: number, limit: number, step: number, body: number[]): number[] => [
  ...i32(0),
  ...set(v),
  ...[0x02, 0x40, 0x03, 0x40], // block, loop
  ...[...get(v), ...get(limit), 0x4f, 0x0d, 1], // br_if (v >= limit) out of the block
  ...body,
  ...[...get(v), ...i32(step), ...ADD, ...set(v)],
  ...[0x0c, 0, 0x0b, 0x0b], // br to the loop, end, end
];
/** `dst = a + b·c` (i32 locals). */
export const mulAdd = (dst: number, a: number, b: number, c: number) => [
  ...[...get(a), ...get(b), ...get(c), ...MUL, ...ADD],
  ...set(dst),
];
/** `dst += by` (i32 locals). */
export const bump = (dst: number, by: number) => [...get(dst), ...get(by), ...ADD, ...set(dst)];
export const times = (n: number, f: (i: number) => number[]) =>
  Array.from({ length: n }, (_, i) => f(i)).flat();

export interface Kernel {
  name: string;
  params: number;
  locals: number[][];
  body: number[];
}
