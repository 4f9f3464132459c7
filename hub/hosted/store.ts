import { and, eq } from "drizzle-orm";
import { hubHostedSecrets } from "../../shared/db/schema.js";
import { EdgegymError } from "../../shared/errors.js";
import type { HostedBundle, HostedSource } from "../../shared/hosted.js";
import { seal, unseal } from "../../shared/seal.js";
import type { HubDb } from "../db.js";
import type { BundleBucket, HubBindings } from "../env.js";
import { hubSealKey } from "../seal-key.js";

/**
 * Where hosted bundles live. The bytes go to R2 (`HUB_BUNDLES`), content-addressed by bundle hash:
 * a bundle may reach 10 MiB, and a D1 value stops at 2 MB. Each bundle is two objects: the modules as
 * pushed (what `…/source` shows readers) and as the sandbox runs them (instrumented), so a cold start
 * parses nothing. The version's own secrets go to D1, sealed.
 */
const sourceKey = (hash: string) => `bundles/${hash}/source.json`;
const runKey = (hash: string) => `bundles/${hash}/run.json`;

/** The bindings the store reads its bucket from (the hub's, or a test's `env`). */
type BucketBindings = Pick<HubBindings, "HUB_BUNDLES">;

function bucket(bindings: BucketBindings): BundleBucket {
  if (!bindings.HUB_BUNDLES) {
    throw new EdgegymError(
      "not_configured",
      "this hub has no HUB_BUNDLES bucket, so it hosts no environments",
    );
  }
  return bindings.HUB_BUNDLES;
}

export async function putBundle(
  bindings: BucketBindings,
  hash: string,
  source: HostedSource,
  run: HostedBundle,
): Promise<void> {
  const b = bucket(bindings);
  await Promise.all([
    b.put(sourceKey(hash), JSON.stringify(source)),
    b.put(runKey(hash), JSON.stringify(run)),
  ]);
}

async function read<T>(bindings: BucketBindings, key: string): Promise<T> {
  const object = await bucket(bindings).get(key);
  if (!object) throw new EdgegymError("internal", "the hosted bundle is missing from the hub's storage");
  // The hub wrote this object after checking it; it is read back as stored.
  return JSON.parse(await object.text()) as T;
}

/** The bundle as pushed. */
export const readSource = (bindings: BucketBindings, hash: string) =>
  read<HostedSource>(bindings, sourceKey(hash));
/** The bundle as the sandbox runs it. */
export const readRun = (bindings: BucketBindings, hash: string) => read<HostedBundle>(bindings, runKey(hash));

/** Sealed secrets never expire on their own: the version lives as long as the hub keeps it. */
const SECRETS_TTL_SECONDS = 100 * 365 * 24 * 3600;
/**
 * The hub's key for hosted secrets at rest. Rotating `EDGEGYM_SESSION_KEY` makes every hosted
 * version's secrets unreadable.
 */
const secretsKey = (bindings: HubBindings) => hubSealKey(bindings, "hub:hosted-secrets");

/** `secrets` sealed for `hub_hosted_secrets.sealed`. */
export async function sealSecrets(bindings: HubBindings, secrets: Record<string, string>): Promise<string> {
  return seal({ secrets }, await secretsKey(bindings), SECRETS_TTL_SECONDS);
}

export async function readSecrets(
  db: HubDb,
  bindings: HubBindings,
  envId: number,
  version: string,
): Promise<Record<string, string>> {
  const row = await db.query.hubHostedSecrets.findFirst({
    where: and(eq(hubHostedSecrets.envId, envId), eq(hubHostedSecrets.version, version)),
  });
  const opened = row ? await unseal(row.sealed, await secretsKey(bindings)) : undefined;
  if (!opened?.ok) throw new EdgegymError("internal", "the hosted version's secrets cannot be read");
  return opened.value.secrets as Record<string, string>;
}
