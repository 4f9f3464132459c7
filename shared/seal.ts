import { EncryptJWT, errors, type JWTPayload, jwtDecrypt } from "jose";
import type { Result } from "./result.js";

const encoder = new TextEncoder();

/**
 * Derives a per-purpose AES-256-GCM key from the deployment secret with HKDF-SHA-256, so that each
 * environment's tokens are opaque to every other environment even when they share one secret.
 */
export async function deriveSealKey(secret: string, purpose: string): Promise<CryptoKey> {
  if (secret.length < 16) throw new Error("session secret must be at least 16 characters");
  const base = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-256", salt: encoder.encode("edgegym/v1"), info: encoder.encode(purpose) },
    base,
    256,
  );
  return crypto.subtle.importKey("raw", bits, "AES-GCM", false, ["encrypt", "decrypt"]);
}

/** Encrypts and authenticates `payload` as a compact JWE (dir + A256GCM) that expires `ttlSeconds` from `now`. */
export async function seal(
  payload: Record<string, unknown>,
  key: CryptoKey,
  ttlSeconds: number,
  now: number = Date.now(),
): Promise<string> {
  const iat = Math.floor(now / 1000);
  return new EncryptJWT(payload as JWTPayload)
    .setProtectedHeader({ alg: "dir", enc: "A256GCM" })
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlSeconds)
    .encrypt(key);
}

export type UnsealError = "invalid" | "expired";

/** Decrypts a sealed token. Any tampering, truncation or foreign key gives `invalid`; a past `exp`, `expired`. */
export async function unseal(
  token: string,
  key: CryptoKey,
  now: number = Date.now(),
): Promise<Result<Record<string, unknown>, UnsealError>> {
  try {
    const { payload } = await jwtDecrypt(token, key, {
      currentDate: new Date(now),
      keyManagementAlgorithms: ["dir"],
      contentEncryptionAlgorithms: ["A256GCM"],
    });
    return { ok: true, value: payload as Record<string, unknown> };
  } catch (e) {
    return { ok: false, error: e instanceof errors.JWTExpired ? "expired" : "invalid" };
  }
}
