import { EdgegymError } from "../shared/errors.js";
import { deriveSealKey, type SealKey } from "../shared/seal.js";

/** The bindings a hub key comes from (the hub's, or a test's `env`). */
export type SealKeyBindings = { EDGEGYM_SESSION_KEY?: unknown };

/** Keys per purpose and deployment secret, derived once per isolate. */
const keys = new Map<string, Promise<SealKey>>();

/**
 * One of the hub's own sealing keys: HKDF of the deployment secret under `purpose`, a name no env
 * uses, so a token sealed for one purpose opens under no other.
 */
export function hubSealKey(bindings: SealKeyBindings, purpose: string): Promise<SealKey> {
  const secret = bindings.EDGEGYM_SESSION_KEY;
  if (typeof secret !== "string") throw new EdgegymError("not_configured", "EDGEGYM_SESSION_KEY is not set");
  const id = `${purpose}\u0000${secret}`;
  let key = keys.get(id);
  if (!key) {
    key = deriveSealKey(secret, purpose);
    keys.set(id, key);
  }
  return key;
}
