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

/** How long one hub call may take before the CLI gives up on it. */
export const HUB_CALL_TIMEOUT_MS = 30_000;

/**
 * A hub error as the CLI shows it: one line with the problem's detail, its code and every entry of its
 * `issues` list (which field, what was wrong). `exitCode` is 2 when the hub refused the request (4xx:
 * the user's input) and 1 when the hub could not be reached or failed.
 */
export class HubError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 2,
    /** The hub's HTTP status, when it answered. */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** `detail (code): path: message; path: message`, the problem+json of a refused request in one line. */
export function problemLine(p: Problem): string {
  const issues = (p.issues ?? []).map((i) => `${i.path === "" ? "(body)" : i.path}: ${i.message}`);
  return `${p.detail ?? p.title} (${p.code})${issues.length > 0 ? `: ${issues.join("; ")}` : ""}`;
}

/** The error for a non-2xx hub reply: its problem when it sent one, else the status and a body excerpt. */
export function hubFailure(status: number, text: string): HubError {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const p = Problem.safeParse(json);
  const line = p.success
    ? problemLine(p.data)
    : `HTTP ${status}${text.trim() ? `: ${text.trim().slice(0, 200)}` : ""}`;
  return new HubError(line, status >= 400 && status < 500 ? 2 : 1, status);
}

/** `hubApi(flags)(method, path, body)`: JSON in and out; `token` replaces the resolved one (bootstrap). */
export function hubApi(flags: HubFlags, override?: { token: string }) {
  const resolved = resolveHub(flags, process.env, readCredentials());
  const url = resolved.url;
  const token = override?.token ?? resolved.token;
  return async function call<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    let text: string;
    try {
      res = await fetch(url + path, {
        method,
        headers,
        signal: AbortSignal.timeout(HUB_CALL_TIMEOUT_MS),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      text = await res.text();
    } catch (e) {
      const why =
        e instanceof Error && e.name === "TimeoutError" ? `no answer in ${HUB_CALL_TIMEOUT_MS} ms` : "";
      throw new HubError(`cannot reach the hub at ${url}${why ? ` (${why})` : ""}`, 1);
    }
    if (!res.ok) throw hubFailure(res.status, text);
    try {
      return (text ? JSON.parse(text) : null) as T;
    } catch {
      throw new HubError(`the hub at ${url} answered ${method} ${path} with something that is not JSON`, 1);
    }
  };
}

/**
 * The hub's bootstrap secret, which creating teams (and a new team's first tokens) takes: the file
 * `--bootstrap-file` names (the secret alone, or the JSON `npm run dev` keeps with a `bootstrap`
 * field), else `HUB_ADMIN_TOKEN`. Never a flag value, so it stays out of shell history and `ps`.
 */
export function bootstrapSecret(file: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, "utf8").trim();
    } catch (e) {
      throw new HubError(`cannot read --bootstrap-file ${file}: ${(e as NodeJS.ErrnoException).code ?? e}`);
    }
    let secret = text;
    if (text.startsWith("{")) {
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new HubError(`${file} starts with "{" but is not JSON`);
      }
      const parsed = z.object({ bootstrap: z.string().min(1) }).safeParse(json);
      if (!parsed.success) throw new HubError(`${file} is JSON without a "bootstrap" field`);
      secret = parsed.data.bootstrap;
    }
    if (secret === "") throw new HubError(`${file} is empty`);
    return secret;
  }
  const fromEnv = env.HUB_ADMIN_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  throw new HubError(
    "this takes the hub's bootstrap secret: set HUB_ADMIN_TOKEN or pass --bootstrap-file <file> (npm run dev keeps it in .edgegym/hub-local.json)",
  );
}

/** Runs a command body, printing hub errors as one line without a stack (exit 2 for refusals, else 1). */
export function action<A extends unknown[]>(f: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args) => {
    try {
      await f(...args);
    } catch (e) {
      if (!(e instanceof HubError)) throw e;
      console.error(`edgegym: ${e.message}`);
      process.exitCode = e.exitCode;
    }
  };
}

export function splitRef(ref: string): { owner: string; name: string } {
  const m = /^([a-z0-9-]{1,64})\/([a-z0-9-]{1,64})$/.exec(ref);
  if (!m?.[1] || !m[2]) throw new HubError(`expected owner/name, got ${ref}`);
  return { owner: m[1], name: m[2] };
}
