import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { findBuiltin } from "../../environments/builtin.js";
import { createEnvironmentsHost } from "../../environments/host.js";
import { generateSecrets } from "../../environments/kit/secrets.js";
import { err, ok, type Result } from "../../shared/result.js";
import { httpTransport, localTransport, type Transport } from "./transport.js";

/** Where hub requests go and with which token; from the environment or `edgegym login`'s file. */
export type HubCredentials = { hub: string; token?: string };

export const DEFAULT_HUB_URL = "http://127.0.0.1:8787";

/** `$EDGEGYM_CONFIG_DIR/credentials.json`, else `~/.config/edgegym/credentials.json`. */
export function credentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.EDGEGYM_CONFIG_DIR ?? join(homedir(), ".config", "edgegym"), "credentials.json");
}

/** EDGEGYM_HUB_URL / EDGEGYM_TOKEN win over the credentials file; a missing file is not an error. */
export async function loadHubCredentials(env: NodeJS.ProcessEnv = process.env): Promise<HubCredentials> {
  let file: { hub?: unknown; token?: unknown } = {};
  try {
    file = JSON.parse(await readFile(credentialsPath(env), "utf8")) as typeof file;
  } catch {
    file = {};
  }
  const hub = env.EDGEGYM_HUB_URL ?? (typeof file.hub === "string" ? file.hub : DEFAULT_HUB_URL);
  const token = env.EDGEGYM_TOKEN ?? (typeof file.token === "string" ? file.token : undefined);
  return token === undefined ? { hub } : { hub, token };
}

const HUB_REF = /^hub:\/\/([a-z0-9][a-z0-9-]*)\/([a-z0-9][a-z0-9-]*)@([0-9A-Za-z.+-]+)$/;

/**
 * Turns an `--env` value into a transport:
 * - `http(s)://…/envs/<name>`: that base URL;
 * - `hub://owner/name@version`: the hub gateway `<hub>/v1/envs/owner/name@version` with a bearer token;
 * - `local:<name>`: the built-in env in-process, with fresh secrets.
 */
export async function resolveEnv(
  spec: string,
  opts: { connections: number; env?: NodeJS.ProcessEnv },
): Promise<Result<Transport, string>> {
  if (/^https?:\/\//.test(spec)) return ok(httpTransport(spec, { connections: opts.connections }));
  const hub = HUB_REF.exec(spec);
  if (hub) {
    const creds = await loadHubCredentials(opts.env);
    const base = `${creds.hub.replace(/\/+$/, "")}/v1/envs/${hub[1]}/${hub[2]}@${hub[3]}`;
    const headers = creds.token === undefined ? undefined : { authorization: `Bearer ${creds.token}` };
    return ok(httpTransport(base, { connections: opts.connections, ...(headers ? { headers } : {}) }));
  }
  if (spec.startsWith("local:")) {
    const name = spec.slice("local:".length);
    const env = findBuiltin(name);
    if (env === undefined) return err(`no built-in environment named "${name}"`);
    return ok(localTransport(createEnvironmentsHost([env]), `/envs/${name}`, await generateSecrets()));
  }
  return err(`--env must be a URL, hub://owner/name@version or local:<name>, got "${spec}"`);
}
