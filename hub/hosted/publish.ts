import { SIGNING_KEY_VAR } from "../../environments/kit/keys.js";
import { generateSecrets } from "../../environments/kit/secrets.js";
import { EdgegymError } from "../../shared/errors.js";
import type { HostedBundle, HostedInfo } from "../../shared/hosted.js";
import type { Manifest } from "../../shared/protocol.js";
import type { HubBindings } from "../env.js";
import { checkBundle } from "./bundle.js";
import { type HostedRef, sandboxCode } from "./loader.js";
import { putBundle, sealSecrets } from "./store.js";

/** A pushed bundle checked and ready to be asked for its manifest, with the secrets the hub made for it. */
export type PreparedHosted = {
  /** Runs the bundle from memory: nothing is stored until its manifest has passed. */
  ref: HostedRef;
  info: HostedInfo;
  bundle: HostedBundle;
  run: HostedBundle;
  secrets: Record<string, string>;
};

/**
 * Checks `bundle` (hub/hosted/bundle.ts) and makes the version's own session key and signing key,
 * which never leave the hub: the bundle has no say in them, so receipts verify against the key the
 * hub gave it.
 */
export async function prepareHosted(
  bundle: HostedBundle,
  envId: number,
  version: string,
  bindings: HubBindings,
): Promise<PreparedHosted> {
  const checked = await checkBundle(bundle, bindings);
  if (!checked.ok) throw checked.error;
  const { info, run } = checked.value;
  const secrets = await generateSecrets();
  const unstored = { id: `publish/${crypto.randomUUID()}`, code: sandboxCode(run, secrets, bindings) };
  return { ref: { envId, version, bundleHash: info.bundleHash, unstored }, info, bundle, run, secrets };
}

/** Refuses a manifest whose public key is not the one the hub generated for this version. */
export function checkHostedKey(manifest: Manifest, prepared: PreparedHosted): void {
  const signing = JSON.parse(prepared.secrets[SIGNING_KEY_VAR] ?? "{}") as { x?: string };
  if (manifest.publicKey.x !== signing.x) {
    throw new EdgegymError(
      "bad_manifest",
      `the manifest's publicKey is not the key the hub gave this version (the env must sign with ${SIGNING_KEY_VAR} from its bindings)`,
      { issues: [{ path: "publicKey", message: "not the hub-generated key" }] },
    );
  }
}

/** Stores the bundle's bytes and returns the version's sealed secrets, for the version's insert. */
export async function storeHosted(bindings: HubBindings, prepared: PreparedHosted): Promise<string> {
  const { bundle, run, info } = prepared;
  await putBundle(bindings, info.bundleHash, { mainModule: bundle.mainModule, modules: bundle.modules }, run);
  return sealSecrets(bindings, prepared.secrets);
}
