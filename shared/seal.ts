import { fromBase64Url, toBase64Url } from "./base64url.js";
import type { Result } from "./result.js";
import { nodeBuiltin } from "./runtime.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The protected header of every sealed token, as a compact JWE: direct key, AES-256-GCM. */
const HEADER = toBase64Url(encoder.encode(JSON.stringify({ alg: "dir", enc: "A256GCM" })));
const AAD = encoder.encode(HEADER);
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** An AES-256-GCM key for session tokens: its raw bytes and, lazily, the WebCrypto or Node key. */
export type SealKey = { readonly raw: Uint8Array<ArrayBuffer>; web?: Promise<CryptoKey>; node?: NodeKey };

/**
 * Derives a per-purpose AES-256-GCM key from the deployment secret with HKDF-SHA-256, so that each
 * environment's tokens are opaque to every other environment even when they share one secret.
 */
export async function deriveSealKey(secret: string, purpose: string): Promise<SealKey> {
  if (secret.length < 16) throw new Error("session secret must be at least 16 characters");
  const base = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-256", salt: encoder.encode("edgegym/v1"), info: encoder.encode(purpose) },
    base,
    256,
  );
  return { raw: new Uint8Array(bits) };
}

/** The slice of `node:crypto` used when present: synchronous AES-GCM, several times faster on Node. */
type NodeCipher = {
  update(data: string, encoding: "utf8"): Uint8Array;
  update(data: Uint8Array): Uint8Array & { toString(encoding: "utf8"): string };
  final(): Uint8Array;
  setAAD(aad: Uint8Array): unknown;
  getAuthTag(): Uint8Array;
  setAuthTag(tag: Uint8Array): unknown;
};
/** A `node:crypto` KeyObject: made once per key, it spares each cipher re-importing the raw bytes. */
type NodeKey = { readonly type: "secret" };
type NodeCrypto = {
  createSecretKey(raw: Uint8Array): NodeKey;
  createCipheriv(alg: string, key: NodeKey, iv: Uint8Array): NodeCipher;
  createDecipheriv(alg: string, key: NodeKey, iv: Uint8Array): NodeCipher;
};

/**
 * Node's WebCrypto runs every AES-GCM call as a thread-pool job, which costs more than the rest of
 * a step; Node's own cipher is synchronous. Workers and other runtimes use WebCrypto.
 */
const nodeCrypto = nodeBuiltin<NodeCrypto>("node:crypto");

const webKey = (key: SealKey): Promise<CryptoKey> => {
  key.web ??= crypto.subtle.importKey("raw", key.raw, "AES-GCM", false, ["encrypt", "decrypt"]);
  return key.web;
};

/** The compact JWE of `plaintext`: header, empty key, IV, ciphertext, tag. */
async function encrypt(key: SealKey, plaintext: string): Promise<string> {
  const iv = randomIv();
  if (nodeCrypto) {
    key.node ??= nodeCrypto.createSecretKey(key.raw);
    const c = nodeCrypto.createCipheriv("aes-256-gcm", key.node, iv);
    c.setAAD(AAD);
    // GCM is a stream mode: `final` adds no bytes, so the ciphertext is `update`'s output alone.
    const data = c.update(plaintext, "utf8");
    c.final();
    return `${HEADER}..${toBase64Url(iv)}.${toBase64Url(data)}.${toBase64Url(c.getAuthTag())}`;
  }
  // The IV is a view into the shared pool, which a later draw may refill during the awaits below.
  const ivText = toBase64Url(iv);
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv: iv.slice(), additionalData: AAD },
      await webKey(key),
      encoder.encode(plaintext),
    ),
  );
  const cut = sealed.length - TAG_BYTES;
  return `${HEADER}..${ivText}.${toBase64Url(sealed.subarray(0, cut))}.${toBase64Url(sealed.subarray(cut))}`;
}

/** The plaintext, or throws when the tag does not authenticate. */
async function decrypt(key: SealKey, iv: Uint8Array, data: Uint8Array, tag: Uint8Array): Promise<string> {
  if (nodeCrypto) {
    key.node ??= nodeCrypto.createSecretKey(key.raw);
    const d = nodeCrypto.createDecipheriv("aes-256-gcm", key.node, iv);
    d.setAAD(AAD);
    d.setAuthTag(tag);
    const plain = d.update(data);
    d.final();
    return plain.toString("utf8");
  }
  const joined = new Uint8Array(data.length + tag.length);
  joined.set(data, 0);
  joined.set(tag, data.length);
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: iv.slice(), additionalData: AAD },
    await webKey(key),
    joined,
  );
  return decoder.decode(plain);
}

/**
 * Encrypts and authenticates `payload` as a compact JWE (dir + A256GCM, RFC 7516) whose JWT claims
 * expire `ttlSeconds` after `now`. Any JOSE library (jose, for one) opens it with the same key.
 */
export async function seal(
  payload: Record<string, unknown>,
  key: SealKey,
  ttlSeconds: number,
  now: number = Date.now(),
): Promise<string> {
  const iat = Math.floor(now / 1000);
  return encrypt(key, JSON.stringify({ ...payload, iat, exp: iat + ttlSeconds }));
}

/**
 * A fresh IV drawn from a block of random bytes: one CSPRNG call per 256 tokens instead of one per
 * token. The view is read before the next draw, which is all the ciphers need.
 */
const ivPool = new Uint8Array(IV_BYTES * 256);
let ivNext = ivPool.length;
function randomIv(): Uint8Array {
  if (ivNext >= ivPool.length) {
    crypto.getRandomValues(ivPool);
    ivNext = 0;
  }
  ivNext += IV_BYTES;
  return ivPool.subarray(ivNext - IV_BYTES, ivNext);
}

export type UnsealError = "invalid" | "expired";

/** Decrypts a sealed token. Any tampering, truncation or foreign key gives `invalid`; a past `exp`, `expired`. */
export async function unseal(
  token: string,
  key: SealKey,
  now: number = Date.now(),
): Promise<Result<Record<string, unknown>, UnsealError>> {
  const parts = token.split(".");
  if (parts.length !== 5 || parts[0] !== HEADER || parts[1] !== "") return { ok: false, error: "invalid" };
  let payload: unknown;
  try {
    const iv = fromBase64Url(parts[2] ?? "");
    const data = fromBase64Url(parts[3] ?? "");
    const tag = fromBase64Url(parts[4] ?? "");
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) return { ok: false, error: "invalid" };
    payload = JSON.parse(await decrypt(key, iv, data, tag));
  } catch {
    return { ok: false, error: "invalid" };
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    return { ok: false, error: "invalid" };
  }
  const claims = payload as Record<string, unknown>;
  if (typeof claims.exp !== "number") return { ok: false, error: "invalid" };
  if (claims.exp <= Math.floor(now / 1000)) return { ok: false, error: "expired" };
  return { ok: true, value: claims };
}
