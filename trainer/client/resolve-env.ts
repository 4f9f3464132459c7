import { existsSync } from "node:fs";
import { findBuiltin, findBuiltinAt } from "../../environments/builtin.js";
import { localDbPath, openLocalDb } from "../../environments/data/local-db.js";
import { createEnvironmentsHost } from "../../environments/host.js";
import { generateSecrets } from "../../environments/kit/secrets.js";
import { formatEnvRef, parseHubEnv } from "../../shared/env-ref.js";
import { err, ok, type Result } from "../../shared/result.js";
import { type HubTarget, hubFromEnv } from "./credentials.js";
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
    // `local:<name>@<version>` names an archived earlier version (environments/builtin.ts).
    const [name = "", version] = spec.slice("local:".length).split("@");
    const env = version === undefined ? findBuiltin(name) : findBuiltinAt(name, version);
    if (env === undefined)
      return err(`no built-in environment named "${name}"${version === undefined ? "" : ` at ${version}`}`);
    // Datasets imported with `npm run data` serve dataset-backed envs (calculator-gsm8k, ...) here too.
    const dbPath = localDbPath(opts.env ?? process.env);
    const db = existsSync(dbPath) ? { EDGEGYM_DB: await openLocalDb(dbPath) } : {};
    const bindings = { ...(await generateSecrets()), ...db };
    return ok(localTransport(createEnvironmentsHost([env]), `/envs/${name}`, bindings));
  }
  return err(`--env must be a URL, hub://owner/name@version or local:<name>, got "${spec}"`);
}
