/** Node's Buffer when the runtime has one (much faster than `btoa` on Node); absent on plain Workers. */
type BufferLike = {
  from(data: Uint8Array | string, encoding?: string): Uint8Array & { toString(encoding: string): string };
};
const NodeBuffer = (globalThis as { Buffer?: BufferLike }).Buffer;

/** Base64url without padding (RFC 4648 §5), the alphabet of JOSE. */
export function toBase64Url(bytes: Uint8Array): string {
  if (NodeBuffer) return NodeBuffer.from(bytes).toString("base64url");
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(s).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Decodes base64url; throws on characters outside the alphabet. */
export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error("not base64url");
  if (NodeBuffer) return new Uint8Array(NodeBuffer.from(text, "base64url"));
  const bin = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
