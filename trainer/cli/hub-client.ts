import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { z } from "zod";
import { Problem } from "../../shared/errors.js";

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
export function resolveHub(
  flags: HubFlags,
  env: NodeJS.ProcessEnv,
  file: Credentials,
): { url: string; token?: string } {
  const url = flags.hub ?? env.EDGEGYM_HUB_URL ?? file.url ?? DEFAULT_HUB_URL;
  const token = flags.token ?? env.EDGEGYM_TOKEN ?? file.token;
  return { url: url.replace(/\/+$/, ""), ...(token ? { token } : {}) };
}

/** A hub error as the CLI shows it: the problem's detail and code. */
export class HubError extends Error {}

export function hubApi(flags: HubFlags) {
  const { url, token } = resolveHub(flags, process.env, readCredentials());
  return async function call<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    try {
      res = await fetch(url + path, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch {
      throw new HubError(`cannot reach the hub at ${url}`);
    }
    const text = await res.text();
    const json: unknown = text ? JSON.parse(text) : null;
    if (!res.ok) {
      const p = Problem.safeParse(json);
      throw new HubError(
        p.success ? `${p.data.detail ?? p.data.title} (${p.data.code})` : `HTTP ${res.status}`,
      );
    }
    return json as T;
  };
}

/** Runs a command body, printing hub errors without a stack and exiting 1. */
export function action<A extends unknown[]>(f: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args) => {
    try {
      await f(...args);
    } catch (e) {
      if (!(e instanceof HubError)) throw e;
      console.error(`edgegym: ${e.message}`);
      process.exitCode = 1;
    }
  };
}

export function splitRef(ref: string): { owner: string; name: string } {
  const m = /^([a-z0-9-]{1,64})\/([a-z0-9-]{1,64})$/.exec(ref);
  if (!m?.[1] || !m[2]) throw new HubError(`expected owner/name, got ${ref}`);
  return { owner: m[1], name: m[2] };
}
