import { generateSigningJwk } from "../../shared/receipt.js";
import { SESSION_KEY_VAR, SIGNING_KEY_VAR } from "./keys.js";

/** Fresh secrets for an in-process host or a test run: receipts verify only against this run's key. */
export async function generateSecrets(): Promise<Record<string, string>> {
  const session = crypto.getRandomValues(new Uint8Array(32));
  return {
    [SESSION_KEY_VAR]: btoa(String.fromCharCode(...session)).replace(/=+$/, ""),
    [SIGNING_KEY_VAR]: JSON.stringify(await generateSigningJwk()),
  };
}
