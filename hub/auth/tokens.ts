import { toBase64Url } from "../../shared/base64url.js";
import { sha256Hex } from "../../shared/content-hash.js";

export const TOKEN_PREFIX = "egh_";

/** A new API token secret: `egh_` + 32 random bytes as base64url. Shown once, stored only hashed. */
export function newTokenSecret(): string {
  return TOKEN_PREFIX + toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
}

/** A short random id with a readable prefix, e.g. `tok_…`, `run_…`. */
export function newId(prefix: string): string {
  return `${prefix}_${toBase64Url(crypto.getRandomValues(new Uint8Array(12)))}`;
}

/** What the database keeps of a token: its SHA-256, so a leaked table grants nothing. */
export function hashToken(secret: string): Promise<string> {
  return sha256Hex(secret);
}

/** Equality of two hex hashes without an early exit, so timing reveals nothing about the secret. */
export function hashesEqual(x: string, y: string): boolean {
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.min(x.length, y.length); i++) diff |= x.charCodeAt(i) ^ y.charCodeAt(i);
  return diff === 0;
}
