import { generateSigningJwk } from "../../shared/receipt.js";

/** Fresh secrets for a test run: tests never depend on a developer's `.dev.vars`. */
export async function testSecrets(): Promise<Record<string, string>> {
  return {
    EDGEGYM_SESSION_KEY: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url"),
    EDGEGYM_SIGNING_KEY: JSON.stringify(await generateSigningJwk()),
  };
}
