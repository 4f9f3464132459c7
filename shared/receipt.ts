import { calculateJwkThumbprint, compactVerify, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { fromBase64Url, toBase64Url } from "./base64url.js";
import { type PublicJwk, ReceiptClaims } from "./protocol.js";
import type { Result } from "./result.js";
import { nodeBuiltin } from "./runtime.js";

export const RECEIPT_TYP = "edgegym-receipt+jws";

export type SigningKey = {
  privateKey: CryptoKey;
  publicJwk: PublicJwk;
  /** The same key as a `node:crypto` KeyObject, on Node only: synchronous signing. */
  nodeKey?: unknown;
  /** The encoded JWS protected header, the same for every receipt this key signs. */
  header?: string;
};

/** The slice of `node:crypto` used when present; Node's WebCrypto runs each signature as a thread-pool job. */
type NodeSigner = {
  createPrivateKey(input: { key: JWK; format: "jwk" }): unknown;
  sign(algorithm: null, data: Uint8Array, key: unknown): Uint8Array;
};
const nodeCrypto = nodeBuiltin<NodeSigner>("node:crypto");

/** A fresh Ed25519 key pair; the private half as JWK is what the `EDGEGYM_SIGNING_KEY` secret holds. */
export async function generateSigningJwk(): Promise<JWK> {
  const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  return exportJWK(privateKey);
}

/** Imports a private Ed25519 JWK and derives its public JWK, with the RFC 7638 thumbprint as `kid`. */
export async function importSigningJwk(jwk: JWK): Promise<SigningKey> {
  if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || !jwk.d || !jwk.x) {
    throw new Error("signing key must be a private Ed25519 JWK");
  }
  const privateKey = (await importJWK(jwk, "EdDSA")) as CryptoKey;
  const publicBase = { kty: "OKP" as const, crv: "Ed25519" as const, x: jwk.x };
  const kid = await calculateJwkThumbprint(publicBase);
  const nodeKey = nodeCrypto?.createPrivateKey({ key: jwk, format: "jwk" });
  return { privateKey, publicJwk: { ...publicBase, kid }, ...(nodeKey ? { nodeKey } : {}) };
}

const encoder = new TextEncoder();

/** A compact JWS (RFC 7515, alg EdDSA) over the claims; `verifyReceipt` and any JOSE library check it. */
export async function signReceipt(claims: ReceiptClaims, key: SigningKey): Promise<string> {
  key.header ??= toBase64Url(
    encoder.encode(JSON.stringify({ alg: "EdDSA", typ: RECEIPT_TYP, kid: key.publicJwk.kid })),
  );
  const input = `${key.header}.${toBase64Url(encoder.encode(JSON.stringify(claims)))}`;
  const data = encoder.encode(input);
  const signature =
    nodeCrypto && key.nodeKey
      ? nodeCrypto.sign(null, data, key.nodeKey)
      : new Uint8Array(await crypto.subtle.sign("Ed25519", key.privateKey, data));
  return `${input}.${toBase64Url(signature)}`;
}

/** Verifies a receipt against a manifest's public key and returns its claims, or why it failed. */
export async function verifyReceipt(
  jws: string,
  publicJwk: PublicJwk,
): Promise<Result<ReceiptClaims, string>> {
  let payload: Uint8Array;
  try {
    const key = await importJWK({ kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x }, "EdDSA");
    ({ payload } = await compactVerify(jws, key, { algorithms: ["EdDSA"] }));
  } catch {
    return { ok: false, error: "signature does not verify" };
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    return { ok: false, error: "payload is not JSON" };
  }
  const claims = ReceiptClaims.safeParse(json);
  return claims.success ? { ok: true, value: claims.data } : { ok: false, error: "payload is not a receipt" };
}

/**
 * The claims of a receipt whose signature was already checked (one the hub verified on upload and
 * stored), read without checking it again; `undefined` when it is not a receipt's shape.
 */
export function storedReceiptClaims(jws: string): ReceiptClaims | undefined {
  try {
    const payload = jws.split(".")[1] ?? "";
    const claims = ReceiptClaims.safeParse(JSON.parse(new TextDecoder().decode(fromBase64Url(payload))));
    return claims.success ? claims.data : undefined;
  } catch {
    return undefined;
  }
}
