import type { HubTarget } from "../../hub/client.js";
import type { Manifest } from "../../shared/protocol.js";
import { err, ok, type Result } from "../../shared/result.js";
import { EnvClient } from "./env-client.js";
import { resolveEnv } from "./resolve-env.js";

/** An env client for `--env` plus its manifest (tools, split sizes). */
export async function connectEnv(
  spec: string,
  concurrency: number,
  env: NodeJS.ProcessEnv = process.env,
  hub?: HubTarget,
): Promise<Result<{ client: EnvClient; manifest: Manifest }>> {
  const transport = await resolveEnv(spec, { connections: concurrency, env, ...(hub ? { hub } : {}) });
  if (!transport.ok) return err(transport.error);
  const client = new EnvClient(transport.value, { concurrency });
  const manifest = await client.manifest();
  if (!manifest.ok) {
    await client.close();
    return err(`cannot read the manifest of ${spec}: ${manifest.error.detail}`);
  }
  return ok({ client, manifest: manifest.value });
}
