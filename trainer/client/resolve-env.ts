import { existsSync } from "node:fs";
import { findBuiltin } from "../../environments/builtin.js";
import { DEFAULT_LOCAL_DB, openLocalDb } from "../../environments/data/local-db.js";
import { createEnvironmentsHost } from "../../environments/host.js";
import { generateSecrets } from "../../environments/kit/secrets.js";
import { err, ok, type Result } from "../../shared/result.js";
import { credentialsPath, readCredentials, resolveHub } from "../cli/hub-client.js";
import { httpTransport, localTransport, type Transport } from "./transport.js";

const HUB_REF = /^hub:\/\/([a-z0-9][a-z0-9-]*)\/([a-z0-9][a-z0-9-]*)@([0-9A-Za-z.+-]+)$/;

/**
 * Turns an `--env` value into a transport:
 * - `http(s)://…/envs/<name>`: that base URL;
 * - `hub://owner/name@version`: the hub gateway `<hub>/v1/envs/owner/name@version` with the bearer
 *   token of `edgegym login` (EDGEGYM_HUB_URL / EDGEGYM_TOKEN override the credentials file);
 * - `local:<name>`: the built-in env in-process, with fresh secrets and, when it exists, the local
 *   dataset file of `npm run data` (`EDGEGYM_DATA_DB`, default `.edgegym/data.db`).
 */
export async function resolveEnv(
  spec: string,
  opts: { connections: number; env?: NodeJS.ProcessEnv },
): Promise<Result<Transport, string>> {
  if (/^https?:\/\//.test(spec)) return ok(httpTransport(spec, { connections: opts.connections }));
  const hub = HUB_REF.exec(spec);
  if (hub) {
    const env = opts.env ?? process.env;
    const creds = resolveHub({}, env, readCredentials(credentialsPath(env)));
    const base = `${creds.url}/v1/envs/${hub[1]}/${hub[2]}@${hub[3]}`;
    const headers = creds.token === undefined ? undefined : { authorization: `Bearer ${creds.token}` };
    return ok(httpTransport(base, { connections: opts.connections, ...(headers ? { headers } : {}) }));
  }
  if (spec.startsWith("local:")) {
    const name = spec.slice("local:".length);
    const env = findBuiltin(name);
    if (env === undefined) return err(`no built-in environment named "${name}"`);
    // Datasets imported with `npm run data` serve dataset-backed envs (calculator-gsm8k, ...) here too.
    const dbPath = (opts.env ?? process.env).EDGEGYM_DATA_DB ?? DEFAULT_LOCAL_DB;
    const db = existsSync(dbPath) ? { EDGEGYM_DB: await openLocalDb(dbPath) } : {};
    const bindings = { ...(await generateSecrets()), ...db };
    return ok(localTransport(createEnvironmentsHost([env]), `/envs/${name}`, bindings));
  }
  return err(`--env must be a URL, hub://owner/name@version or local:<name>, got "${spec}"`);
}
