import { deriveSessionKey, SESSION_KEY_VAR } from "../../environments/kit/keys.js";
import { seal, unseal } from "../../shared/seal.js";

/**
 * Re-seals a real session token after `edit`, the way an attacker who knew the secret (or another
 * environment on the same deployment) could: the suite's source of expired, foreign and wrong-version
 * tokens. `now` and `ttlSeconds` set the forged expiry; `sealAs` picks whose key seals it.
 */
export async function forgeToken(
  token: string,
  secrets: Readonly<Record<string, string>>,
  envName: string,
  options: {
    edit?: (claims: Record<string, unknown>) => Record<string, unknown>;
    now?: number;
    ttlSeconds?: number;
    sealAs?: string;
    secret?: string;
  } = {},
): Promise<string> {
  const secret = secrets[SESSION_KEY_VAR];
  if (!secret) throw new Error(`conformance: the target's secrets must include ${SESSION_KEY_VAR}`);
  const opened = await unseal(token, await deriveSessionKey(secret, envName));
  if (!opened.ok) throw new Error(`conformance: cannot open a token the env issued (${opened.error})`);
  const { iat: _iat, exp: _exp, ...claims } = opened.value;
  const key = await deriveSessionKey(options.secret ?? secret, options.sealAs ?? envName);
  return seal(options.edit ? options.edit(claims) : claims, key, options.ttlSeconds ?? 3600, options.now);
}

/** The token with one character in its middle changed: the JWE's authentication tag must catch it. */
export function tamper(token: string): string {
  const parts = token.split(".");
  const i = 3;
  const part = parts[i] ?? "";
  const mid = Math.floor(part.length / 2);
  const flipped = part[mid] === "A" ? "B" : "A";
  parts[i] = part.slice(0, mid) + flipped + part.slice(mid + 1);
  return parts.join(".");
}
