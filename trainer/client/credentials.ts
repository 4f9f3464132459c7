import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { z } from "zod";
import type { HubTarget } from "../../hub/client.js";

/**
 * Which hub the trainer talks to and with what token: `--hub`/`--token` flags, else
 * `EDGEGYM_HUB_URL`/`EDGEGYM_TOKEN`, else the file `edgegym login` writes. The CLI, `hub://` envs and
 * `eval --upload` all resolve it here; callers that already know the hub (the pipeline) pass it in.
 */

export const DEFAULT_HUB_URL = "http://localhost:8787";

/** Where `edgegym login` keeps the hub URL and token (mode 0600). */
export function credentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME ?? join(homedir(), ".config");
  return join(base, "edgegym", "credentials.json");
}

const Credentials = z.object({ url: z.string().optional(), token: z.string().optional() });
export type Credentials = z.infer<typeof Credentials>;

export function readCredentials(path = credentialsPath()): Credentials {
  if (!existsSync(path)) return {};
  const parsed = Credentials.safeParse(JSON.parse(readFileSync(path, "utf8")));
  return parsed.success ? parsed.data : {};
}

export function writeCredentials(creds: Credentials, path = credentialsPath()): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(creds, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** Hub flags every hub command accepts. */
export type HubFlags = { hub?: string; token?: string };

/** Flags win over `EDGEGYM_HUB_URL` / `EDGEGYM_TOKEN`, which win over the credentials file. */
export function resolveHub(flags: HubFlags, env: NodeJS.ProcessEnv, file: Credentials): HubTarget {
  const url = flags.hub ?? env.EDGEGYM_HUB_URL ?? file.url ?? DEFAULT_HUB_URL;
  const token = flags.token ?? env.EDGEGYM_TOKEN ?? file.token;
  return { url: url.replace(/\/+$/, ""), ...(token ? { token } : {}) };
}

/** The hub of this process's environment and credentials file (no flags). */
export function hubFromEnv(env: NodeJS.ProcessEnv = process.env): HubTarget {
  return resolveHub({}, env, readCredentials(credentialsPath(env)));
}
