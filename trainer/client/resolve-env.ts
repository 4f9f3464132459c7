import { existsSync } from "node:fs";
import { findBuiltin, findBuiltinAt } from "../../environments/builtin.js";
import { localDbPath, openLocalDb } from "../../environments/data/local-db.js";
import { createEnvironmentsHost } from "../../environments/host.js";
import type { Environment } from "../../environments/kit/index.js";
import { generateSecrets } from "../../environments/kit/secrets.js";
import type { HubTarget } from "../../hub/client.js";
import { formatEnvRef, parseHubEnv, parseNameAtVersion } from "../../shared/env-ref.js";
import { err, ok, type Result } from "../../shared/result.js";
import { hubFromEnv } from "./credentials.js";
import { httpTransport, localTransport, type Transport } from "./transport.js";

/**
 * Turns an `--env` value into a transport:
 * - `http(s)://…/envs/<name>`: that base URL;
 * - `hub://owner/name@version`: the hub gateway `<hub>/v1/envs/owner/name@version` with the bearer
 *   token of `edgegym login` (EDGEGYM_HUB_URL / EDGEGYM_TOKEN override the credentials file);
 * - `local:<name>`, or `local:<name>@<version>` for an archived version: the built-in env in-process,
 *   with fresh secrets and, when it exists, the local dataset file of `npm run data`
 *   (`EDGEGYM_DATA_DB`, default `.edgegym/data.db`).
 */
export async function resolveEnv(
  spec: string,
  /** `hub`: the hub of `hub://` envs, when the caller knows it (else the environment and credentials). */
  opts: { connections: number; env?: NodeJS.ProcessEnv; hub?: HubTarget },
): Promise<Result<Transport, string>> {
  if (/^https?:\/\//.test(spec)) return ok(httpTransport(spec, { connections: opts.connections }));
  const hub = parseHubEnv(spec);
  if (hub) {
    const creds = opts.hub ?? hubFromEnv(opts.env ?? process.env);
    const base = `${creds.url}/v1/envs/${formatEnvRef(hub)}`;
    const headers = creds.token === undefined ? undefined : { authorization: `Bearer ${creds.token}` };
    return ok(httpTransport(base, { connections: opts.connections, ...(headers ? { headers } : {}) }));
  }
  if (spec.startsWith("local:")) {
    const env = localBuiltin(spec);
    if (!env.ok) return env;
    const bindings = { ...(await generateSecrets()), ...(await localDataBindings(opts.env ?? process.env)) };
    return ok(localTransport(createEnvironmentsHost([env.value]), `/envs/${env.value.name}`, bindings));
  }
  return err(`--env must be a URL, hub://owner/name@version or local:<name>, got "${spec}"`);
}

/**
 * The built-in env a `local:<name>` or `local:<name>@<version>` spec names (an archived earlier
 * version with `@`, environments/builtin.ts).
 */
export function localBuiltin(spec: string): Result<Environment, string> {
  const rest = spec.slice("local:".length);
  const at = parseNameAtVersion(rest);
  const name = at?.name ?? rest;
  const version = at?.version;
  const env = version === undefined ? findBuiltin(name) : findBuiltinAt(name, version);
  if (env === undefined)
    return err(`no built-in environment named "${name}"${version === undefined ? "" : ` at ${version}`}`);
  return ok(env);
}

/**
 * The local dataset file of `npm run data` as a binding, when it exists, so that dataset-backed envs
 * (calculator-gsm8k, ...) serve in-process too.
 */
export async function localDataBindings(vars: NodeJS.ProcessEnv): Promise<Record<string, unknown>> {
  const dbPath = localDbPath(vars);
  return existsSync(dbPath) ? { EDGEGYM_DB: await openLocalDb(dbPath) } : {};
}
