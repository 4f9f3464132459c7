import { err, ok, type Result } from "../../shared/result.js";

/** A tensor as stored: row-major data and its shape. */
export interface StoredTensor {
  shape: number[];
  data: Float32Array | Int32Array;
}

interface HeaderEntry {
  dtype: string;
  shape: number[];
  data_offsets: [number, number];
}

const BYTES: Record<string, number> = { F32: 4, I32: 4, F16: 2, BF16: 2, F64: 8, I64: 8 };

/**
 * Writes the safetensors format: an 8-byte little-endian header length, a JSON header naming each
 * tensor's dtype, shape and byte range, then the raw little-endian data. The header is padded with
 * spaces to 8 bytes so the data stays aligned, as the reference writer does.
 */
export function encodeSafetensors(
  tensors: ReadonlyMap<string, StoredTensor>,
  metadata: Record<string, string> = {},
) {
  const header: Record<string, unknown> = {};
  if (Object.keys(metadata).length > 0) header.__metadata__ = metadata;
  let offset = 0;
  const names = [...tensors.keys()].sort();
  for (const name of names) {
    const t = tensors.get(name) as StoredTensor;
    const size = t.data.byteLength;
    header[name] = {
      dtype: t.data instanceof Int32Array ? "I32" : "F32",
      shape: t.shape,
      data_offsets: [offset, offset + size],
    };
    offset += size;
  }
  let json = JSON.stringify(header);
  json += " ".repeat((8 - ((8 + json.length) % 8)) % 8);
  const headerBytes = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + headerBytes.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  let at = 8 + headerBytes.length;
  for (const name of names) {
    const t = tensors.get(name) as StoredTensor;
    out.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength), at);
    at += t.data.byteLength;
  }
  return out;
}

/** IEEE half (F16) bits → float. */
function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * 2 ** -14 * (frac / 1024);
  if (exp === 31) return frac ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * 2 ** (exp - 15) * (1 + frac / 1024);
}

function convert(dtype: string, bytes: Uint8Array): Float32Array | Int32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = bytes.byteLength / (BYTES[dtype] as number);
  if (dtype === "I32" || dtype === "I64") {
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++)
      out[i] = dtype === "I32" ? view.getInt32(i * 4, true) : Number(view.getBigInt64(i * 8, true));
    return out;
  }
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    if (dtype === "F32") out[i] = view.getFloat32(i * 4, true);
    else if (dtype === "F64") out[i] = view.getFloat64(i * 8, true);
    else if (dtype === "F16") out[i] = halfToFloat(view.getUint16(i * 2, true));
    // bfloat16 is the top half of a float32.
    else out[i] = new Float32Array(new Uint32Array([view.getUint16(i * 2, true) << 16]).buffer)[0] as number;
  }
  return out;
}

/** Reads a safetensors file; F16, BF16 and F64 widen or narrow to float32, I64 to int32. */
export function decodeSafetensors(
  bytes: Uint8Array,
): Result<{ tensors: Map<string, StoredTensor>; metadata: Record<string, string> }> {
  if (bytes.byteLength < 8) return err("safetensors file is shorter than its 8-byte header length");
  const headerLength = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  if (8 + headerLength > bytes.byteLength)
    return err("safetensors header length runs past the end of the file");
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength)));
  } catch {
    return err("safetensors header is not valid JSON");
  }
  const base = 8 + headerLength;
  const tensors = new Map<string, StoredTensor>();
  for (const [name, value] of Object.entries(header)) {
    if (name === "__metadata__") continue;
    const entry = value as HeaderEntry;
    const width = BYTES[entry.dtype];
    if (width === undefined) return err(`tensor ${name} has unsupported dtype ${entry.dtype}`);
    const [start, end] = entry.data_offsets;
    const count = entry.shape.reduce((a, b) => a * b, 1);
    if (end - start !== count * width || base + end > bytes.byteLength) {
      return err(`tensor ${name}: byte range does not match shape ${JSON.stringify(entry.shape)}`);
    }
    tensors.set(name, {
      shape: entry.shape,
      data: convert(entry.dtype, bytes.subarray(base + start, base + end)),
    });
  }
  return ok({ tensors, metadata: (header.__metadata__ as Record<string, string> | undefined) ?? {} });
}
