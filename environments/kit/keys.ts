import type { JWK } from "jose";
import { EdgegymError } from "../../shared/errors.js";
import { importSigningJwk, type SigningKey } from "../../shared/receipt.js";
import { deriveSealKey, type SealKey } from "../../shared/seal.js";
import type { EnvRuntime } from "./types.js";

/** Secret names, the same as Worker secrets and Node environment variables. */
export const SESSION_KEY_VAR = "EDGEGYM_SESSION_KEY";
export const SIGNING_KEY_VAR = "EDGEGYM_SIGNING_KEY";

export type KeyRing = { seal: SealKey; signing: SigningKey };

const cache = new Map<string, Promise<KeyRing>>();

/**
 * The keys one environment uses, from the deployment's secrets. Imports are cached per secret pair
 * because key derivation costs far more than a step.
 */
export function resolveKeys(envName: string, runtime: EnvRuntime): Promise<KeyRing> {
  const secret = runtime.bindings[SESSION_KEY_VAR];
  const signing = runtime.bindings[SIGNING_KEY_VAR];
  if (typeof secret !== "string" || typeof signing !== "string") {
    throw new EdgegymError(
      "not_configured",
      `${SESSION_KEY_VAR} and ${SIGNING_KEY_VAR} must be set (npm run dev writes local ones to .dev.vars)`,
    );
  }
  const cacheKey = `${envName}\u0000${secret}\u0000${signing}`;
  let ring = cache.get(cacheKey);
  if (!ring) {
    ring = buildRing(envName, secret, signing);
    ring.catch(() => cache.delete(cacheKey));
    cache.set(cacheKey, ring);
  }
  return ring;
}

/** The key that seals `envName`'s session tokens: each environment's tokens are opaque to every other. */
export function deriveSessionKey(secret: string, envName: string): Promise<SealKey> {
  return deriveSealKey(secret, `session:${envName}`);
}

async function buildRing(envName: string, secret: string, signingJson: string): Promise<KeyRing> {
  let jwk: JWK;
  try {
    jwk = JSON.parse(signingJson) as JWK;
  } catch {
    throw new EdgegymError("not_configured", `${SIGNING_KEY_VAR} is not a JSON Web Key`);
  }
  const [seal, signing] = await Promise.all([deriveSessionKey(secret, envName), importSigningJwk(jwk)]);
  return { seal, signing };
}
