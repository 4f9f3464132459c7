import { onNode } from "./runtime.js";

/** Node's Buffer, whose encoders are native and much faster than `btoa` on Node. */
type NodeBytes = Uint8Array & { toString(encoding: string): string };
type BufferLike = {
  from(data: string, encoding: string): NodeBytes;
  from(buffer: ArrayBufferLike, byteOffset: number, length: number): NodeBytes;
  isBuffer(value: unknown): boolean;
};
/** The ES2026 built-ins (workerd has them, Node 22 not yet): native, and cheaper than workerd's `Buffer`. */
type NativeBase64 = {
  fromBase64(text: string, options: { alphabet: "base64url" }): Uint8Array;
};
type NativeBytes = Uint8Array & { toBase64(options: { alphabet: "base64url"; omitPadding: true }): string };

/** Only Node's own Buffer: on workerd `Buffer` is a compatibility layer over slower JavaScript. */
const NodeBuffer = onNode ? (globalThis as { Buffer?: BufferLike }).Buffer : undefined;
const native = typeof (Uint8Array as unknown as Partial<NativeBase64>).fromBase64 === "function";

/** Base64url without padding (RFC 4648 §5), the alphabet of JOSE. */
export function toBase64Url(bytes: Uint8Array): string {
  if (NodeBuffer) {
    // A view over the same memory: nothing is copied just to reach Buffer's encoder.
    const view = NodeBuffer.isBuffer(bytes)
      ? (bytes as NodeBytes)
      : NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    return view.toString("base64url");
  }
  if (native) return (bytes as NativeBytes).toBase64({ alphabet: "base64url", omitPadding: true });
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(s).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/**
 * Canonical unpadded base64url (RFC 4648 §3.5): a length that is not 1 mod 4, and a last character
 * whose unused low bits are zero (4 bits when the length is 2 mod 4, 2 bits when 3 mod 4). Other
 * spellings decode to the same bytes, so accepting them would let a modified token pass.
 */
const BASE64URL = /^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2}[AEIMQUYcgkosw048]|[A-Za-z0-9_-][AQgw])?$/;

/**
 * Decodes canonical base64url; throws on characters outside the alphabet and on non-canonical
 * spellings. On Node the bytes may be a view into a shared pool.
 */
export function fromBase64Url(text: string): Uint8Array {
  if (!BASE64URL.test(text)) throw new Error("not canonical base64url");
  if (NodeBuffer) return NodeBuffer.from(text, "base64url");
  if (native) return (Uint8Array as unknown as NativeBase64).fromBase64(text, { alphabet: "base64url" });
  const bin = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
