import { readFileSync } from "node:fs";
import { z } from "zod";
import { type HubClient, HubError, hubClient } from "../../hub/client.js";
import { parseEnvId } from "../../shared/env-ref.js";
import { type HubFlags, readCredentials, resolveHub } from "../client/credentials.js";

/**
 * What the hub commands share: the typed hub client for a command's `--hub`/`--token` flags, the
 * bootstrap secret, and `action`, which prints a hub refusal as one line (see hub/client.ts).
 */

/** The hub client for a command's flags; `token` replaces the resolved one (bootstrap). */
export function hubApi(flags: HubFlags, override?: { token: string }): HubClient {
  const resolved = resolveHub(flags, process.env, readCredentials());
  return hubClient({ url: resolved.url, ...(override ?? (resolved.token ? { token: resolved.token } : {})) });
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
  const id = parseEnvId(ref);
  if (!id || id.version !== undefined) throw new HubError(`expected owner/name, got ${ref}`);
  return { owner: id.owner, name: id.name };
}
