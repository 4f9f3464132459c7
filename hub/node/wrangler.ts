import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";

const NODE_MODULES = dirname(dirname(createRequire(import.meta.url).resolve("wrangler/package.json")));

/** wrangler's own executable, started directly rather than through `npx` (whose npm prints warnings). */
export const WRANGLER_BIN = join(NODE_MODULES, ".bin", "wrangler");

/**
 * The environment every local wrangler runs with. A local hub needs nothing from Cloudflare's
 * servers, and on a machine without internet each of these lookups printed a
 * `getaddrinfo ENOTFOUND workers.cloudflare.com` stack: no telemetry, no banner (whose update check
 * asks the npm registry), and no download of the `Request.cf` object (a placeholder is used).
 */
export function wranglerEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...base,
    // As under `npx`: the project's own Node (the `node` package, new enough for wrangler) comes first.
    PATH: [join(NODE_MODULES, ".bin"), base.PATH].filter(Boolean).join(delimiter),
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_HIDE_BANNER: "true",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
  };
}

/** `wrangler d1 migrations apply edgegym --local`, optionally into another persistence folder. */
export function migrateArgs(persistTo?: string): string[] {
  return [
    "d1",
    "migrations",
    "apply",
    "edgegym",
    "--local",
    ...(persistTo ? ["--persist-to", persistTo] : []),
  ];
}

/**
 * `wrangler dev` reading its variables from `envFiles` (later files win). Secrets travel in files
 * (mode 0600), never as `--var NAME:value`, which anyone can read in `ps`.
 */
export function devArgs(port: number, envFiles: readonly string[], persistTo?: string): string[] {
  return [
    "dev",
    "--port",
    String(port),
    ...envFiles.flatMap((f) => ["--env-file", f]),
    ...(persistTo ? ["--persist-to", persistTo] : []),
  ];
}

/**
 * One line for wrangler's migration output (a table per migration, "Executing on local database"
 * banners): how many were applied, or that there were none to apply.
 */
export function migrationsLine(output: string): string {
  const applied = /About to apply (\d+) migration/.exec(output)?.[1];
  if (applied !== undefined) return `hub: D1 migrations applied (${applied} new)`;
  if (/No migrations to apply/i.test(output)) return "hub: D1 migrations up to date";
  return "hub: D1 migrations applied";
}

/**
 * A private env file (a fresh 0700 folder, the file 0600) with `vars`, and the function that removes
 * it. wrangler reads it with `--env-file`; `.dev.vars` is then read only when it is passed too.
 */
export function secretEnvFile(vars: Record<string, string>): { path: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "edgegym-hub-"));
  const path = join(dir, "hub.env");
  const body = Object.entries(vars)
    .map(([k, v]) => `${k}='${v}'`)
    .join("\n");
  writeFileSync(path, `${body}\n`, { mode: 0o600 });
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The env files of a local hub: `.dev.vars` (the envs' signing keys) when present, then the secrets. */
export function hubEnvFiles(devVars: string, secrets: string): string[] {
  return [...(existsSync(devVars) ? [devVars] : []), secrets];
}
