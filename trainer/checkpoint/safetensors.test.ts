import { describe, expect, it } from "vitest";
import { decodeSafetensors, encodeSafetensors } from "./safetensors.js";

describe("safetensors", () => {
  it("round-trips float32 and int32 tensors with metadata, 8-byte aligned", () => {
    const bytes = encodeSafetensors(
      new Map([
        ["b", { shape: [2], data: new Int32Array([7, -1]) }],
        ["a", { shape: [2, 2], data: new Float32Array([1, 2.5, -3, 4]) }],
      ]),
      { format: "pt" },
    );
    const headerLength = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    expect((8 + headerLength) % 8).toBe(0);
    const read = decodeSafetensors(bytes);
    if (!read.ok) throw new Error(read.error);
    expect(read.value.metadata).toEqual({ format: "pt" });
    expect(Array.from(read.value.tensors.get("a")?.data ?? [])).toEqual([1, 2.5, -3, 4]);
    expect(read.value.tensors.get("a")?.shape).toEqual([2, 2]);
    expect(Array.from(read.value.tensors.get("b")?.data ?? [])).toEqual([7, -1]);
  });

  it("widens BF16 and F16 to float32", () => {
    // BF16 0x3FC0 is float32 0x3FC00000 = 1.5; F16 0xC000 is sign 1, exponent 16−15 = 1, so −2.
    const header = JSON.stringify({
      x: { dtype: "BF16", shape: [1], data_offsets: [0, 2] },
      y: { dtype: "F16", shape: [1], data_offsets: [2, 4] },
    });
    const hb = new TextEncoder().encode(header);
    const bytes = new Uint8Array(8 + hb.length + 4);
    new DataView(bytes.buffer).setBigUint64(0, BigInt(hb.length), true);
    bytes.set(hb, 8);
    new DataView(bytes.buffer).setUint16(8 + hb.length, 0x3fc0, true);
    new DataView(bytes.buffer).setUint16(8 + hb.length + 2, 0xc000, true);
    const read = decodeSafetensors(bytes);
    if (!read.ok) throw new Error(read.error);
    expect(read.value.tensors.get("x")?.data[0]).toBe(1.5);
    expect(read.value.tensors.get("y")?.data[0]).toBe(-2);
  });

  it("rejects truncated and malformed files", () => {
    expect(decodeSafetensors(new Uint8Array(3)).ok).toBe(false);
    const bytes = encodeSafetensors(new Map([["a", { shape: [4], data: new Float32Array(4) }]]));
    expect(decodeSafetensors(bytes.subarray(0, bytes.length - 4)).ok).toBe(false);
    const bad = new Uint8Array(12);
    new DataView(bad.buffer).setBigUint64(0, 4n, true);
    bad.set(new TextEncoder().encode("{no "), 8);
    expect(decodeSafetensors(bad)).toEqual({ ok: false, error: "safetensors header is not valid JSON" });
  });
});
